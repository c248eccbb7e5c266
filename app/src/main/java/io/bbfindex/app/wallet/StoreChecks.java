package io.bbfindex.app.wallet;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What happens when stored bytes do not hash to what the index says they are: the request gets a
 * 500 {@code store_inconsistent} naming the file and position, and {@code
 * bbf_store_inconsistent_total} counts it, so that an alert fires. Wrong bytes are never served.
 */
public final class StoreChecks {
  public static final String COUNTER = "bbf.store.inconsistent";

  private final Counter inconsistent;

  public StoreChecks(MeterRegistry registry) {
    this.inconsistent =
        Counter.builder(COUNTER)
            .description(
                "Reads whose stored bytes did not hash to what the index named (served as 500)")
            .register(registry);
  }

  /** Counts the mismatch and returns the refusal to throw. */
  WalletException inconsistent(String detail) {
    inconsistent.increment();
    return new WalletException(500, "store_inconsistent", detail);
  }
}
