package io.bbfindex.app.follow;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The {@code serve --follow} options.
 *
 * @param rpc {@code --rpc URL}, or {@code null} for 127.0.0.1 at the network's default port
 * @param cookie {@code --rpc-cookie FILE}, or {@code null} for {@code <datadir>/.cookie}
 * @param user {@code --rpc-user} (with {@code --rpc-password}) instead of the cookie
 * @param zmq {@code --zmq tcp://HOST:PORT}, {@code none} to poll, or {@code null} to discover
 * @param refreshBlocks {@code --refresh-blocks N}: refresh the history once the tip layer holds N
 *     blocks; 0 never
 */
public record FollowOptions(
    @Nullable String rpc,
    @Nullable Path cookie,
    @Nullable String user,
    @Nullable String password,
    @Nullable String zmq,
    int refreshBlocks) {
  /** The environment variable that may hold the RPC password instead of the command line. */
  public static final String PASSWORD_ENV = "BBF_RPC_PASSWORD";

  /** A day of blocks: the tip layer stays small, a refresh is rare. */
  public static final int DEFAULT_REFRESH_BLOCKS = 144;
}
