package io.bbfindex.app.lookup;

/**
 * Where {@link LookupService} counts how its lookups ended. An interface here, implemented by the
 * metrics package, so that the lookup logic does not depend on how (or whether) counts are
 * exported.
 */
public interface LookupCounter {

  /** Counts one lookup of {@code kind} that ended as {@code outcome}. */
  void countLookup(LookupKind kind, LookupOutcome outcome);

  /**
   * Counts {@code n} lookups of {@code kind} that ended as {@code outcome}; nothing when n <= 0.
   */
  void countLookups(LookupKind kind, LookupOutcome outcome, long n);

  /**
   * Counts one read whose stored bytes did not hash to what commits to them ({@link
   * StoreInconsistentException}, or a wallet route's re-hash): answered 500, never served.
   */
  void countStoreInconsistent();
}
