package io.bbfindex.app.lookup;

import java.util.List;
import java.util.Map;

/**
 * What the status routes and the meters read of the Bitcoin index: its tip, its filters, its
 * txindex and how much LevelDB it has read ({@code GET /v1/status}, {@code GET /v1/filters}, {@code
 * bbf_index_*}).
 */
public interface IndexStatus {
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
   * 'x'} rows of Core >= 32, no txids stored) or {@code mixed} (both). No default: a backend that
   * forgot to say (the follower's once did) said {@code legacy} of a hashed node.
   */
  String txindexLayout();

  /**
   * Where the txindex lives: {@code indexes/txindex} (Core >= 0.17) or {@code blocks/index} (<=
   * 0.16).
   */
  String txindexLocation();

  /**
   * What answers "where is this txid": {@code node} (the node's own txindex) or {@code own}
   * (bbf-index's own position index built from the blk files, for a node without {@code -txindex}).
   * No default, for the reason {@link #txindexLayout()} has none.
   */
  String txindexSource();

  /** LevelDB reads performed so far (monotonic); the metric that proves negatives stay off disk. */
  long leveldbReads();

  /**
   * What {@code GET /v1/status} adds: at least the tip height; a backend that follows a running
   * node adds the network, the node's tip, the snapshot's and the follow state.
   */
  default Map<String, Object> status() {
    return Map.of("tipHeight", tipHeight());
  }

  /**
   * More gauges for {@code /metrics}, by meter name (e.g. a pruning node's backfill progress); none
   * by default.
   */
  default Map<String, java.util.function.DoubleSupplier> gauges() {
    return Map.of();
  }
}
