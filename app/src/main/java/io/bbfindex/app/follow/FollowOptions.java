package io.bbfindex.app.follow;

import java.nio.file.Path;
import java.util.Set;
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
  /** The valued option names {@code serve} accepts with {@code --follow}. */
  public static final Set<String> NAMES =
      Set.of(
          "rpc",
          "rpc-cookie",
          "rpc-user",
          "rpc-password",
          "rpc-password-file",
          "zmq",
          "refresh-blocks");

  /** The environment variable that may hold the RPC password instead of the command line. */
  public static final String PASSWORD_ENV = "BBF_RPC_PASSWORD";

  /** A day of blocks: the tip layer stays small, a refresh is rare. */
  public static final int DEFAULT_REFRESH_BLOCKS = 144;

  /** The flag that turns following on. */
  public static final String FLAG = "--follow";

  public static final String HELP =
      """
        --follow        follow the RUNNING node of --datadir: blocks after the snapshot, reorgs and
                        the mempool (JSON-RPC with the node's cookie; ZMQ 'sequence' if it publishes
                        one, else polling every 0.5 s). The node's directories are only read.
        --rpc URL       the node's RPC (default http://127.0.0.1:<network's default port>/)
        --rpc-cookie F  cookie file (default <datadir>/.cookie)
        --rpc-user U, --rpc-password P   fixed credentials instead of the cookie (the password is
                        better given as --rpc-password-file F, or in $BBF_RPC_PASSWORD: a command
                        line is visible to every user in ps)
        --zmq EP        ZMQ 'sequence' endpoint (default: getzmqnotifications; 'none' polls)
        --refresh-blocks N   new snapshot and filters once N blocks follow it (default 144; 0 never)
      """;
}
