package io.bbfindex.app.pruned;

import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.ownindex.FingerprintCapture;
import io.bbfindex.ingest.ownindex.FingerprintStore;
import io.bbfindex.ingest.ownindex.PrunedTx;
import io.bbfindex.ingest.records.BlockInfo;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What the server knows of a pruning node's deleted blocks: the fingerprint store (where a txid of
 * a pruned block was confirmed), the active blocks pruned before bbf-index indexed them (the
 * "behind the node's prune horizon" state, {@link #notReadyReason}) and the progress of {@code
 * --backfill-pruned}. Thread-safe.
 */
public final class PrunedHistory implements AutoCloseable {

  private final FingerprintStore store;
  private final Collection<BlockInfo> blocks;
  private volatile List<BlockInfo> unindexed;
  private final BackfillProgress backfill = new BackfillProgress();

  /**
   * @param store the fingerprints (owned: closed with this)
   * @param blocks the node's block index as the server opened it
   */
  public PrunedHistory(FingerprintStore store, Collection<BlockInfo> blocks) {
    this.store = Objects.requireNonNull(store, "store");
    this.blocks = Objects.requireNonNull(blocks, "blocks");
    this.unindexed = FingerprintCapture.unindexedPruned(blocks, store);
  }

  public FingerprintStore store() {
    return store;
  }

  public BackfillProgress backfill() {
    return backfill;
  }

  /** The active blocks pruned before they were indexed, by height (what a backfill fetches). */
  public List<BlockInfo> unindexed() {
    return unindexed;
  }

  /** Computes {@link #unindexed} again, after parts were added. */
  void refresh() {
    unindexed = FingerprintCapture.unindexedPruned(blocks, store);
  }

  /** The block a fingerprint holds {@code txid} (internal order) in, if any. */
  public Optional<PrunedTx> find(byte[] txid) {
    return store.find(txid);
  }

  /** Whether a fingerprint holds the txid at {@code keys[offset .. offset + 32)}. */
  public boolean maybe(byte[] keys, int offset) {
    byte[] txid = offset == 0 && keys.length == 32 ? keys : copy(keys, offset);
    return store.find(txid).isPresent();
  }

  private static byte[] copy(byte[] keys, int offset) {
    return java.util.Arrays.copyOfRange(keys, offset, offset + HashKeys.KEY_BYTES);
  }

  /**
   * Why the server is not ready because of pruning, or null: blocks of the active chain the node
   * deleted before bbf-index indexed them, whose txids would otherwise answer a silent 404.
   */
  public @Nullable String notReadyReason() {
    List<BlockInfo> missing = unindexed;
    if (missing.isEmpty()) {
      return null;
    }
    BackfillProgress.Snapshot b = backfill.snapshot();
    return "behind the node's prune horizon: "
        + missing.size()
        + " block(s) of the active chain (heights "
        + missing.getFirst().height()
        + " to "
        + missing.getLast().height()
        + ") were pruned by the node before bbf-index indexed them; their transactions are"
        + " unknown until they are fetched back"
        + (b.state().equals(BackfillProgress.IDLE)
            ? " (serve with --backfill-pruned to fetch them from the node's peers)"
            : " (backfill " + b.state() + ": " + b.done() + " of " + b.total() + " blocks)");
  }

  /** What {@code GET /v1/status} adds under {@code pruned}. */
  public Map<String, Object> status() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("unindexedBlocks", unindexed.size());
    m.put("fingerprintParts", store.parts());
    m.put("fingerprintBlocks", store.blocks());
    m.put("fingerprintTxids", store.keys());
    m.put("fingerprintBytes", store.bytes());
    m.put("falseConfirmedPerLookup", store.falseConfirmedBound());
    m.put("backfill", backfill.snapshot().json());
    return m;
  }

  /** The meters of {@code /metrics} (names without the {@code bbf_} prefix's dots). */
  public Map<String, DoubleSupplier> gauges() {
    Map<String, DoubleSupplier> g = new LinkedHashMap<>();
    g.put("bbf.pruned.unindexed.blocks", () -> unindexed.size());
    g.put("bbf.pruned.fingerprint.txids", () -> store.keys());
    g.put("bbf.pruned.backfill.blocks.done", () -> backfill.snapshot().done());
    g.put("bbf.pruned.backfill.blocks.total", () -> backfill.snapshot().total());
    g.put("bbf.pruned.backfill.running", () -> backfill.snapshot().running() ? 1 : 0);
    return g;
  }

  @Override
  public void close() {
    store.close();
  }
}
