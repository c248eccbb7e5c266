package io.bbfindex.app.lookup;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.ingest.encoding.HashKeys;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The query logic of the service: probe the filter first, and read Bitcoin Core's index only when
 * the filter says "maybe". A filter "no" is final (filters have no false negatives), so a negative
 * lookup costs a few cache lines and zero LevelDB reads; a filter "maybe" that the index refutes is
 * counted as a false positive, which feeds the observed-FPR gauge.
 *
 * <p>Stateless apart from the backend and the counters; safe for concurrent use.
 */
public final class LookupService {
  private final ChainBackend backend;
  private final LookupCounter metrics;

  public LookupService(ChainBackend backend, LookupCounter metrics) {
    this.backend = Objects.requireNonNull(backend, "backend");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  public ChainBackend backend() {
    return backend;
  }

  /** Looks up one txid (internal byte order). */
  public Optional<TxAnswer> tx(byte[] txid) {
    if (!backend.txMaybe(txid, 0)) {
      metrics.countLookup(LookupKind.TX, LookupOutcome.ABSENT_BY_FILTER);
      return Optional.empty();
    }
    return confirmTx(txid);
  }

  /**
   * Looks up {@code count} txids stored back to back in {@code keys} (32 bytes each, internal
   * order): {@link #probeBatch}, then {@link #confirmMaybes}.
   *
   * @return one answer per key, in order; {@code null} where the txid is unknown
   */
  public @Nullable TxAnswer[] txBatch(byte[] keys, int count) {
    return confirmMaybes(keys, count, probeBatch(keys, count));
  }

  /**
   * The filter half of a batch: probes all {@code count} keys in one batch call (which lets the
   * filter overlap the cache misses) and counts the certain negatives.
   *
   * @return a bit a key (bit {@code i % 64} of word {@code i / 64}): set where the filter says
   *     "maybe"
   */
  public long[] probeBatch(byte[] keys, int count) {
    requireArgument(
        count >= 0 && (long) count * HashKeys.KEY_BYTES <= keys.length,
        "count must be in [0, keys.length / 32]",
        count);
    requireArgument(count <= MaybeOrder.MAX_KEYS, "count must be <= 2^24", count);
    long[] maybe = new long[(count + 63) >>> 6];
    int maybes = backend.txMaybeBatch(keys, count, maybe);
    metrics.countLookups(LookupKind.TX, LookupOutcome.ABSENT_BY_FILTER, count - maybes);
    return maybe;
  }

  /**
   * The index half of a batch: reads the index for each key {@link #probeBatch} marked "maybe", in
   * ascending key order rather than request order. WHY: Core's txindex keys are {@code 't' ||
   * txid}, so ascending txids walk LevelDB's sorted tables (and their block cache) front to back
   * instead of jumping between them.
   *
   * @return one answer per key, in request order; {@code null} where the txid is unknown
   */
  public @Nullable TxAnswer[] confirmMaybes(byte[] keys, int count, long[] maybe) {
    @Nullable TxAnswer[] answers = new TxAnswer[count];
    long[] order = MaybeOrder.ascendingKeys(keys, maybe);
    for (long entry : order) {
      int i = MaybeOrder.index(entry);
      byte[] key =
          java.util.Arrays.copyOfRange(keys, i * HashKeys.KEY_BYTES, (i + 1) * HashKeys.KEY_BYTES);
      answers[i] = confirmTx(key).orElse(null);
    }
    return answers;
  }

  /** Looks up one block hash (internal byte order). */
  public Optional<BlockAnswer> block(byte[] hash) {
    if (!backend.blockMaybe(hash)) {
      metrics.countLookup(LookupKind.BLOCK, LookupOutcome.ABSENT_BY_FILTER);
      return Optional.empty();
    }
    Optional<BlockAnswer> found = backend.lookupBlock(hash);
    metrics.countLookup(LookupKind.BLOCK, outcomeOf(found.map(BlockAnswer::onActiveChain)));
    return found;
  }

  private Optional<TxAnswer> confirmTx(byte[] txid) {
    Optional<TxAnswer> found;
    try {
      found = backend.lookupTx(txid);
    } catch (StoreInconsistentException e) {
      metrics.countStoreInconsistent();
      throw e;
    }
    boolean mempool = found.isPresent() && found.get().status() == ChainStatus.MEMPOOL;
    metrics.countLookup(
        LookupKind.TX,
        mempool ? LookupOutcome.MEMPOOL : outcomeOf(found.map(TxAnswer::onActiveChain)));
    return found;
  }

  private static LookupOutcome outcomeOf(Optional<Boolean> onActiveChain) {
    if (onActiveChain.isEmpty()) {
      return LookupOutcome.FILTER_FALSE_POSITIVE;
    }
    return onActiveChain.get() ? LookupOutcome.CONFIRMED : LookupOutcome.STALE;
  }
}
