package io.bbfindex.app.wallet;

import io.bbfindex.app.lookup.LookupCounter;
import io.bbfindex.app.lookup.StoreInconsistentException;
import java.util.Objects;

/**
 * What happens when stored bytes do not hash to what commits to them: the request gets a 500 {@code
 * store_inconsistent} naming the file and position, and {@code bbf_store_inconsistent_total} counts
 * it, so that an alert fires. Wrong bytes are never served.
 */
public final class StoreChecks {
  private final LookupCounter counter;

  public StoreChecks(LookupCounter counter) {
    this.counter = Objects.requireNonNull(counter, "counter");
  }

  /** Counts the mismatch and returns the refusal to throw. */
  WalletException inconsistent(String detail) {
    counter.countStoreInconsistent();
    return refusal(detail);
  }

  /** The refusal for a lookup that found the store inconsistent (counted where it was found). */
  static WalletException refusal(StoreInconsistentException e) {
    return refusal(e.getMessage());
  }

  private static WalletException refusal(String detail) {
    return new WalletException(500, "store_inconsistent", detail);
  }
}
