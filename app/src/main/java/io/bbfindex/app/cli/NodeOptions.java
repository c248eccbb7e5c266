package io.bbfindex.app.cli;

import io.bbfindex.app.workdir.NodeDirectories;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Which Bitcoin Core node: {@code --datadir} and {@code --conf} of {@code serve} and {@code
 * ingest}.
 */
final class NodeOptions {
  @Option(
      names = "--datadir",
      paramLabel = "DIR",
      description =
          "Bitcoin Core data directory, as bitcoind's -datadir (e.g. ~/.bitcoin: its bitcoin.conf"
              + " says the network; or a network's folder such as ~/.bitcoin/regtest); only read.")
  Optional<Path> datadir = Optional.empty();

  @Option(
      names = "--conf",
      paramLabel = "FILE",
      description = "The node's configuration (default: DIR/bitcoin.conf).")
  Optional<Path> conf = Optional.empty();

  boolean given() {
    return datadir.isPresent();
  }

  /** The node's directories; a bad {@code --datadir} or {@code --conf} is a usage error. */
  NodeDirectories directories() throws UsageException, IOException {
    Path dir = datadir.orElseThrow(() -> new UsageException("option --datadir is required"));
    try {
      return NodeDirectories.resolve(dir, conf.orElse(null));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }
}
