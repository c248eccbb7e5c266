package io.bbfindex.eth;

/**
 * Whether the index heard from the node recently enough to claim "absent": after {@link
 * #STALE_AFTER_NANOS} without a good poll a new block may hold any hash.
 *
 * <p>WHY a flag next to the clock: reading the clock costs more than the whole filter probe of a
 * negative lookup (tens of ns under kvm-clock, where a summary-filter probe is a few). While a
 * watchdog runs ({@link #watch}), a good poll raises {@link #certainlyFresh()}, and the watchdog
 * lowers it {@link #MARGIN_NANOS} before the limit; lookups read the flag, a plain load, and look
 * at the clock ({@link #stale(long)}, exact) only when it is down. Without a watchdog (an index
 * polled by hand) the flag stays down and every negative reads the clock, as before.
 */
final class Freshness {
  /**
   * After this long without a good poll, "absent" is no longer claimed: a new block may hold the
   * hash.
   */
  static final long STALE_AFTER_NANOS = 30_000_000_000L;

  /** How often the watchdog looks at the clock. */
  static final long TICK_MILLIS = 1_000;

  /**
   * The flag goes down this long before the limit: {@link #TICK_MILLIS} plus room for a watchdog
   * scheduled late on a loaded machine.
   */
  static final long MARGIN_NANOS = 10_000_000_000L;

  /** When the last poll succeeded (System.nanoTime()); meaningful once {@link #polled} is set. */
  private volatile long lastGoodPoll;

  private volatile boolean polled;
  private volatile boolean watched;
  private volatile boolean fresh;

  /** A poll succeeded at {@code now}. */
  void goodPoll(long now) {
    lastGoodPoll = now;
    polled = true;
    fresh = watched;
  }

  /**
   * True only while a watchdog runs and the last good poll is well within the limit: then "absent"
   * may be claimed without reading the clock. False says nothing: ask {@link #stale(long)}.
   */
  boolean certainlyFresh() {
    return fresh;
  }

  /** Whether, at {@code now}, no poll has succeeded for over {@link #STALE_AFTER_NANOS}. */
  boolean stale(long now) {
    return !polled || now - lastGoodPoll > STALE_AFTER_NANOS;
  }

  /**
   * The watchdog's step at {@code now}: lowers the flag once the last good poll is older than the
   * limit less the margin.
   */
  void tick(long now) {
    if (!polled || now - lastGoodPoll > STALE_AFTER_NANOS - MARGIN_NANOS) {
      fresh = false;
    }
  }

  /** A watchdog starts ({@code true}) or stops ({@code false}) calling {@link #tick}. */
  void watch(boolean on) {
    watched = on;
    if (!on) {
      fresh = false;
    }
  }

  /** Tests: as if the last good poll had been at {@code nanoTime}. */
  void pretendLastGoodPollWas(long nanoTime) {
    lastGoodPoll = nanoTime;
    polled = true;
    fresh = false;
  }
}
