package io.bbfindex.app.lookup;

import java.util.Optional;

/**
 * The Bitcoin chain data a server answers from, as one closeable whole: what lookups need ({@link
 * ChainLookup}), what the status routes and meters read ({@link IndexStatus}), whether it is ready
 * ({@link Readiness}) and the block bytes behind the answers. The production adapter sits over
 * chain-ingest's {@code NodeIndex} and {@code FilterStore}; a server without Bitcoin data (an
 * Ethereum-only one) has none and serves no Bitcoin route.
 *
 * <p>Implementations must be safe for concurrent use by the server's event-loop threads.
 */
public interface ChainBackend extends ChainLookup, IndexStatus, Readiness, AutoCloseable {

  /**
   * The block bytes behind the answers, for the raw-transaction, merkle-proof and esplora routes;
   * empty for a backend that reads no block files (those routes then answer 404).
   */
  default Optional<BlockData> blockData() {
    return Optional.empty();
  }

  @Override
  void close();
}
