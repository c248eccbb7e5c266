package io.bbfindex.filters.peers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.catalog.FilterType;
import io.bbfindex.filters.hash.HashTestKeys;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every key a filter accepted must be reported present: a million random keys a structure, at a
 * density where the filter is well used (8 bits a key), and single-key and batch probes must agree
 * on foreign keys too.
 */
@DisabledIfSystemProperty(
    named = "bbf.expectScalar",
    matches = "true",
    disabledReason =
        "the peers never use the Vector API: the no-incubator re-run would repeat"
            + " this heavy suite for nothing")
class ZeroFalseNegativesTest {

  private static final int KEYS = 1 << 20;

  @ParameterizedTest
  @EnumSource(FilterType.class)
  void everyAcceptedKeyIsFound(FilterType type) {
    long seed = 0x2E40_0000L + type.ordinal();
    MembershipFilter filter = type.create(KEYS, 8);
    byte[] keys = HashTestKeys.random(seed, KEYS);
    boolean[] accepted = new boolean[KEYS];
    int acceptedCount = 0;
    for (int i = 0; i < KEYS; i++) {
      accepted[i] = filter.add(keys, i * 32);
      acceptedCount += accepted[i] ? 1 : 0;
    }
    assertEquals(acceptedCount, filter.count(), type + HashTestKeys.seedNote(seed));
    assertEquals(
        KEYS,
        acceptedCount,
        type + " refused keys below its capacity" + HashTestKeys.seedNote(seed));
    for (int i = 0; i < KEYS; i++) {
      if (accepted[i] && !filter.mightContain(keys, i * 32)) {
        fail(type + " lost key " + i + " of " + KEYS + HashTestKeys.seedNote(seed));
      }
    }
    boolean[] batch = new boolean[KEYS];
    filter.mightContainBatch(keys, KEYS, batch);
    for (int i = 0; i < KEYS; i++) {
      if (!batch[i]) {
        fail(type + " batch probe lost key " + i + HashTestKeys.seedNote(seed));
      }
    }
    int foreign = 1 << 16;
    byte[] others = HashTestKeys.random(~seed, foreign);
    boolean[] single = new boolean[foreign];
    for (int i = 0; i < foreign; i++) {
      single[i] = filter.mightContain(others, i * 32);
    }
    boolean[] batched = new boolean[foreign];
    filter.mightContainBatch(others, foreign, batched);
    assertArrayEquals(
        single, batched, type + " batch and single probes disagree" + HashTestKeys.seedNote(seed));
  }
}
