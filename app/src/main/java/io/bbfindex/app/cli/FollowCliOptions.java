package io.bbfindex.app.cli;

import io.bbfindex.app.follow.FollowOptions;
import io.bbfindex.app.push.PushOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code serve --follow} and how to reach the followed node: the {@link FollowOptions}. */
final class FollowCliOptions {
  @Option(
      names = "--follow",
      description =
          "Follow the RUNNING node of --datadir: blocks after the snapshot, reorgs and the mempool"
              + " (JSON-RPC with the node's cookie; ZMQ 'sequence' if it publishes one, else"
              + " polling every 0.5 s). The node's directories are only read.")
  boolean follow;

  @Option(
      names = "--rpc",
      paramLabel = "URL",
      description =
          "The node's RPC (default: bitcoin.conf's, else 127.0.0.1 at the network's port).")
  Optional<String> rpc = Optional.empty();

  @Option(
      names = "--rpc-cookie",
      paramLabel = "FILE",
      description = "Cookie file (default: bitcoin.conf's rpccookiefile, else <datadir>/.cookie).")
  Optional<Path> cookie = Optional.empty();

  @Option(
      names = "--rpc-user",
      paramLabel = "U",
      description = "Fixed credentials instead of the cookie, with a password from one of:")
  Optional<String> user = Optional.empty();

  @Option(
      names = "--rpc-password",
      paramLabel = "P",
      description =
          "  the password (visible to every user in ps; or $" + FollowOptions.PASSWORD_ENV + ")")
  Optional<String> password = Optional.empty();

  @Option(
      names = "--rpc-password-file",
      paramLabel = "F",
      description = "  the password as the first line of F")
  Optional<Path> passwordFile = Optional.empty();

  @Option(
      names = "--zmq",
      paramLabel = "EP",
      description = "ZMQ 'sequence' endpoint (default: getzmqnotifications; 'none' polls).")
  Optional<String> zmq = Optional.empty();

  @Option(
      names = "--refresh-blocks",
      paramLabel = "N",
      description =
          "New snapshot and filters once N blocks follow it (default ${DEFAULT-VALUE}; 0 never).")
  int refreshBlocks = FollowOptions.DEFAULT_REFRESH_BLOCKS;

  @Option(
      names = "--max-tracked",
      paramLabel = "N",
      description =
          "Txids one WebSocket connection (<esplora-prefix>/v1/ws) may track (default"
              + " ${DEFAULT-VALUE}, at most 100,000).")
  int maxTracked = PushOptions.DEFAULTS.maxTracked();

  /** The push streams' limits: {@code --max-tracked}, the default heartbeat. */
  PushOptions push() throws UsageException {
    return new PushOptions(
        PushOptions.DEFAULTS.heartbeat(), Bounds.check("--max-tracked", maxTracked, 1, 100_000));
  }

  /** What {@code FollowServe} needs; the password from the file, the option or the environment. */
  FollowOptions options() throws UsageException, IOException {
    return new FollowOptions(
        rpc.orElse(null),
        cookie.orElse(null),
        user.orElse(null),
        password().orElse(null),
        zmq.orElse(null),
        Bounds.check("--refresh-blocks", refreshBlocks, 0, 1_000_000));
  }

  /**
   * The RPC password: {@code --rpc-password-file} (its first line), {@code --rpc-password}, or
   * {@code $BBF_RPC_PASSWORD} beside {@code --rpc-user}; at most one of the options.
   */
  private Optional<String> password() throws UsageException, IOException {
    if (password.isPresent() && passwordFile.isPresent()) {
      throw new UsageException("give --rpc-password or --rpc-password-file, not both");
    }
    if (passwordFile.isPresent()) {
      Path file = passwordFile.get();
      try {
        return Optional.of(Files.readAllLines(file).stream().findFirst().orElse("").strip());
      } catch (NoSuchFileException e) {
        throw new UsageException("--rpc-password-file " + file + " does not exist", e);
      }
    }
    Optional<String> env =
        Optional.ofNullable(System.getenv(FollowOptions.PASSWORD_ENV)).filter(p -> !p.isEmpty());
    return password.or(() -> user.isPresent() ? env : Optional.empty());
  }
}
