package io.bbfindex.app.cli;

import io.bbfindex.eth.EthConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The Ethereum node and how its store is cut: the options of {@code ingest --eth-rpc}. */
class EthOptions {
  @Option(
      names = "--eth-rpc",
      paramLabel = "URL",
      description =
          "An Ethereum node's HTTP JSON-RPC endpoint (e.g. http://127.0.0.1:8545): its transaction"
              + " hashes instead of (ingest) or beside (serve --datadir) Bitcoin's.")
  Optional<String> rpc = Optional.empty();

  @Option(
      names = "--range-bits",
      paramLabel = "N",
      description =
          "2^N blocks per range, fixed when the store is created (default ${DEFAULT-VALUE}).")
  int rangeBits = EthConfig.DEFAULT_RANGE_BITS;

  @Option(
      names = "--depth",
      paramLabel = "N",
      description =
          "Blocks below the head taken as final (default: the node's 'finalized' block, or head - "
              + EthConfig.DEFAULT_DEPTH
              + " when the node reports none).")
  Optional<Integer> depth = Optional.empty();

  boolean given() {
    return rpc.isPresent();
  }

  /** The configuration of the store at {@code store}, polled every {@code poll}. */
  EthConfig config(Path store, double fpr, Duration poll) throws UsageException {
    try {
      return new EthConfig(
          rpc.orElse(""),
          store,
          Bounds.check("--range-bits", rangeBits, 0, 20),
          depth.isPresent() ? Bounds.check("--depth", depth.get(), 0, 1_000_000) : -1,
          fpr,
          poll,
          EthConfig.DEFAULT_TIMEOUT);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }
}
