package io.bbfindex.filters.peers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.catalog.FilterType;
import io.bbfindex.filters.hash.HashTestKeys;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random failures found while building the peers, pinned by seed so they stay fixed. Add a row for
 * every seed {@code cuckoo.CuckooFuzzTest} or {@link PeerFalsePositiveRateTest} ever reports.
 */
class RegressionTest {

  /** What a row replays. */
  @FunctionalInterface
  interface Replay {
    void run();
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        // PeerFalsePositiveRateTest, CUCKOO at 4 bits/key (f=4, load 0.763), seed 0xf9f00130:
        // measured
        // 0.3340 against the textbook 1 - (1 - 1/15)^(8 alpha) = 0.3437, z = -28.8. The per-slot
        // formula is only an upper bound; the model is now the exact 1 - (1 - eps(2B-1)/B^2)^n.
        row(
            "cuckoo f=4: textbook per-slot model overstated the rate by 3 % (seed 0xf9f00130)",
            () -> fprWithinBound(FilterType.CUCKOO, 4, 0xF9F0_0130L, 200_000, 1_000_000)));
  }

  private static Arguments row(String name, Replay replay) {
    return Arguments.of(name, replay);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void pinnedFailureStaysFixed(String name, Replay replay) {
    replay.run();
  }

  private static void fprWithinBound(
      FilterType type, double bitsPerKey, long seed, int keys, int queries) {
    MembershipFilter filter = type.create(keys, bitsPerKey);
    byte[] members = HashTestKeys.random(seed, keys);
    for (int i = 0; i < keys; i++) {
      assertTrue(filter.add(members, i * 32));
    }
    byte[] foreign = HashTestKeys.random(0xF00D_0000L, queries);
    long hits = 0;
    for (int i = 0; i < queries; i++) {
      hits += filter.mightContain(foreign, i * 32) ? 1 : 0;
    }
    double p = filter.modelledFpr();
    double z = (hits - queries * p) / Math.sqrt(queries * p * (1 - p));
    assertTrue(
        Math.abs(z) <= 4.5,
        type
            + " measured "
            + (double) hits / queries
            + " model "
            + p
            + " z "
            + z
            + HashTestKeys.seedNote(seed));
  }
}
