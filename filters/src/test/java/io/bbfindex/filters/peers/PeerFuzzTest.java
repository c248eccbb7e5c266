package io.bbfindex.filters.peers;

import java.util.stream.LongStream;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many seeds of {@link PeerFuzzer}; a failure names its seed, to be pinned in {@link
 * RegressionTest}. {@code -Dpeers.fuzz.seeds=N} runs N seeds instead of 60 (a longer hunt).
 */
@DisabledIfSystemProperty(
    named = "bbf.expectScalar",
    matches = "true",
    disabledReason =
        "the peers never use the Vector API: the no-incubator re-run would repeat"
            + " this heavy suite for nothing")
class PeerFuzzTest {

  static LongStream seeds() {
    long count = Long.getLong("peers.fuzz.seeds", 60);
    return LongStream.rangeClosed(1, count).map(i -> 0xF022_0000L + i);
  }

  @ParameterizedTest(name = "seed={0}")
  @MethodSource("seeds")
  void cuckooFilterAgreesWithItsSignatureOracle(long seed) {
    PeerFuzzer.cuckooFilter(seed);
  }

  @ParameterizedTest(name = "seed={0}")
  @MethodSource("seeds")
  void cuckooHashTableAgreesWithHashMap(long seed) {
    PeerFuzzer.cuckooHashTable(seed);
  }
}
