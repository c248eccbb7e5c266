package io.bbfindex.app.cli;

import io.bbfindex.eth.EthConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code serve --eth-rpc}: the Ethereum options of {@code ingest}, its store and the head poll. */
final class EthServeOptions extends EthOptions {
  @Option(
      names = "--eth-filters",
      paramLabel = "DIR",
      description = "The Ethereum store beside --datadir (default: the --filters path + -eth).")
  Optional<Path> store = Optional.empty();

  @Option(
      names = "--poll-ms",
      paramLabel = "N",
      description = "How often the head is polled, 50..1000 ms (default ${DEFAULT-VALUE}).")
  int pollMs = (int) EthConfig.DEFAULT_POLL.toMillis();

  EthConfig config(Path store, double fpr) throws UsageException {
    return config(store, fpr, Duration.ofMillis(Bounds.check("--poll-ms", pollMs, 50, 1_000)));
  }
}
