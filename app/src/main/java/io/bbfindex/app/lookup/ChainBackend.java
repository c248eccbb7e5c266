package io.bbfindex.app.lookup;

import java.util.List;
import java.util.Optional;

/**
 * What the HTTP service needs from the chain data: a membership filter to say "no" cheaply, and
 * Bitcoin Core's own indexes to confirm a "maybe". The app depends only on this port; the
 * production adapter sits over chain-ingest's {@code NodeIndex} and {@code FilterStore}.
 *
 * <p>All keys are 32 bytes in Bitcoin's internal byte order. Implementations must be safe for
 * concurrent use by the server's event-loop threads.
 */
public interface ChainBackend extends AutoCloseable {

  /**
   * Filter probe for the txid at {@code keys[offset .. offset + 32)}: {@code false} = certainly
   * absent.
   */
  boolean txMaybe(byte[] keys, int offset);

  /**
   * Filter probe of {@code count} consecutive txids (32 bytes each from offset 0): bit {@code i %
   * 64} of {@code maybe[i / 64]} is txid i's "maybe", the bits from {@code count} on are 0; returns
   * how many are set.
   */
  int txMaybeBatch(byte[] keys, int count, long[] maybe);

  /**
   * The txid's location confirmed by the txindex (one LevelDB read), or empty when Core does not
   * know it.
   */
  Optional<TxAnswer> lookupTx(byte[] txid);

  /** Filter probe for a block hash: {@code false} = certainly not in the block index. */
  boolean blockMaybe(byte[] hash);

  /** The block's index entry, or empty when the block index does not hold it. */
  Optional<BlockAnswer> lookupBlock(byte[] hash);

  /** Every loaded filter, for {@code GET /v1/filters}. */
  List<FilterSummary> filters();

  /**
   * The filters that answer lookups (not the per-block-file ones), for the per-filter gauges.
   * Start-up needs only these; implementations may describe {@link #filters()} lazily.
   */
  default List<FilterSummary> lookupFilters() {
    return filters().stream().filter(f -> f.blockFile() < 0).toList();
  }

  /** Height of the active chain's tip. */
  int tipHeight();

  /**
   * Blocks the txindex trails the block index's active tip by (Core builds the txindex in the
   * background, so a freshly synced node's newest transactions may not be indexed yet); NaN when
   * the txindex has not recorded its position.
   */
  default double txindexLagBlocks() {
    return 0;
  }

  /**
   * Which rows the node's txindex holds: {@code legacy} ({@code 't'} rows), {@code hashed} ({@code
   * 'x'} rows of Core >= 32, no txids stored) or {@code mixed} (both).
   */
  default String txindexLayout() {
    return "legacy";
  }

  /**
   * Where the txindex lives: {@code indexes/txindex} (Core >= 0.17) or {@code blocks/index} (<=
   * 0.16).
   */
  default String txindexLocation() {
    return "indexes/txindex";
  }

  /** LevelDB reads performed so far (monotonic); the metric that proves negatives stay off disk. */
  long leveldbReads();

  /**
   * The body of {@code GET /v1/status}: at least the tip height; a backend that follows a running
   * node adds the network, the node's tip, the snapshot's and the follow state.
   */
  default java.util.Map<String, Object> status() {
    return java.util.Map.of("tipHeight", tipHeight());
  }

  /**
   * The block bytes behind the answers, for the raw-transaction, merkle-proof and esplora routes;
   * empty for a backend that reads no block files (those routes then answer 404).
   */
  default Optional<BlockData> blockData() {
    return Optional.empty();
  }

  /** Whether the backend is loaded and consistent enough to answer ({@code GET /readyz}). */
  boolean ready();

  /** Why {@link #ready()} is false, as {@code GET /readyz} tells it. */
  default String notReadyReason() {
    return "the index is not loaded";
  }

  @Override
  void close();
}
