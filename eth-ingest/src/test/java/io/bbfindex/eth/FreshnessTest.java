package io.bbfindex.eth;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The flag that lets a negative lookup skip the clock: up only while a watchdog runs and the last
 * good poll is well within the limit; the exact answer from the clock whenever it is down.
 */
class FreshnessTest {
  private static final long T0 = 1_000_000_000_000L;
  private static final long LIMIT = Freshness.STALE_AFTER_NANOS;

  @Test
  void neverPolledIsStaleAndNotFresh() {
    Freshness f = new Freshness();
    f.watch(true);
    assertTrue(f.stale(T0));
    assertFalse(f.certainlyFresh());
  }

  @Test
  void withoutAWatchdogTheFlagStaysDownAndTheClockDecides() {
    Freshness f = new Freshness();
    f.goodPoll(T0);
    assertFalse(f.certainlyFresh(), "nobody would lower it in time");
    assertFalse(f.stale(T0 + LIMIT));
    assertTrue(f.stale(T0 + LIMIT + 1));
  }

  @Test
  void theWatchdogLowersTheFlagBeforeTheLimit() {
    Freshness f = new Freshness();
    f.watch(true);
    f.goodPoll(T0);
    assertTrue(f.certainlyFresh());
    f.tick(T0 + LIMIT - Freshness.MARGIN_NANOS);
    assertTrue(f.certainlyFresh(), "still within the limit less the margin");
    f.tick(T0 + LIMIT - Freshness.MARGIN_NANOS + 1);
    assertFalse(f.certainlyFresh(), "down a margin before the limit");
    assertFalse(f.stale(T0 + LIMIT), "yet not stale: the clock still says fresh");
    f.goodPoll(T0 + LIMIT);
    assertTrue(f.certainlyFresh(), "a good poll raises it again");
  }

  @Test
  void stoppingTheWatchdogLowersTheFlag() {
    Freshness f = new Freshness();
    f.watch(true);
    f.goodPoll(T0);
    f.watch(false);
    assertFalse(f.certainlyFresh());
    f.goodPoll(T0 + 1);
    assertFalse(f.certainlyFresh());
  }

  @Test
  void pretendingAnOldPollLowersTheFlag() {
    Freshness f = new Freshness();
    f.watch(true);
    f.goodPoll(T0);
    f.pretendLastGoodPollWas(T0 - LIMIT - 1);
    assertFalse(f.certainlyFresh());
    assertTrue(f.stale(T0));
  }
}
