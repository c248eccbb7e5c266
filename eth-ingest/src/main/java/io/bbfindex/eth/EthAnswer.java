package io.bbfindex.eth;

import org.jspecify.annotations.Nullable;

/**
 * What the index says about a transaction hash that it knows: {@code location} and {@code
 * confirmations} are set when {@code status} is {@link Status#CONFIRMED}, null and 0 when pending.
 */
public record EthAnswer(Status status, @Nullable EthTxLocation location, long confirmations) {
  public enum Status {
    CONFIRMED,
    PENDING;

    /** The lower-case name the API writes. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public EthAnswer {
    if ((status == Status.CONFIRMED) != (location != null)) {
      throw new IllegalArgumentException("a " + status + " answer with location " + location);
    }
  }

  static EthAnswer pending() {
    return new EthAnswer(Status.PENDING, null, 0);
  }
}
