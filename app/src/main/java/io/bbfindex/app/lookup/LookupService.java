package io.bbfindex.app.lookup;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.ingest.encoding.HashKeys;
import java.util.Objects;
import java.util.Optional;

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
   * order), probing the filter for all of them in one batch call (which lets the filter overlap the
   * cache misses) before confirming the "maybe"s one by one.
   *
   * @return one answer per key, in order; {@code null} where the txid is unknown
   */
  public TxAnswer[] txBatch(byte[] keys, int count) {
    requireArgument(
        count >= 0 && (long) count * HashKeys.KEY_BYTES <= keys.length,
        "count must be in [0, keys.length / 32]",
        count);
    long[] maybe = new long[(count + 63) >>> 6]; // a bit a txid
    int maybes = backend.txMaybeBatch(keys, count, maybe);
    TxAnswer[] answers = new TxAnswer[count];
    // Only the maybes are visited: a word of 64 certain negatives costs one test.
    for (int word = 0; word < maybe.length; word++) {
      for (long bits = maybe[word]; bits != 0; bits &= bits - 1) {
        int i = (word << 6) + Long.numberOfTrailingZeros(bits);
        byte[] key =
            java.util.Arrays.copyOfRange(
                keys, i * HashKeys.KEY_BYTES, (i + 1) * HashKeys.KEY_BYTES);
        answers[i] = confirmTx(key).orElse(null);
      }
    }
    metrics.countLookups(LookupKind.TX, LookupOutcome.ABSENT_BY_FILTER, count - maybes);
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
    Optional<TxAnswer> found = backend.lookupTx(txid);
    metrics.countLookup(LookupKind.TX, outcomeOf(found.map(TxAnswer::onActiveChain)));
    return found;
  }

  private static LookupOutcome outcomeOf(Optional<Boolean> onActiveChain) {
    if (onActiveChain.isEmpty()) {
      return LookupOutcome.FILTER_FALSE_POSITIVE;
    }
    return onActiveChain.get() ? LookupOutcome.CONFIRMED : LookupOutcome.STALE;
  }
}
