package io.bbfindex.filters.cuckoo;

import java.util.stream.LongStream;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many seeds of {@link CuckooFuzzer}; a failure names its seed, to be pinned in {@code
 * peers.RegressionTest}. {@code -Dcuckoo.fuzz.seeds=N} runs N seeds instead of 60 (a longer hunt).
 */
@DisabledIfSystemProperty(
    named = "bbf.expectScalar",
    matches = "true",
    disabledReason =
        "the cuckoo structures never use the Vector API: the no-incubator re-run would repeat"
            + " this heavy suite for nothing")
class CuckooFuzzTest {

  static LongStream seeds() {
    long count = Long.getLong("cuckoo.fuzz.seeds", 60);
    return LongStream.rangeClosed(1, count).map(i -> 0xF022_0000L + i);
  }

  @ParameterizedTest(name = "seed={0}")
  @MethodSource("seeds")
  void cuckooFilterAgreesWithItsSignatureOracle(long seed) {
    CuckooFuzzer.cuckooFilter(seed);
  }

  @ParameterizedTest(name = "seed={0}")
  @MethodSource("seeds")
  void cuckooHashTableAgreesWithHashMap(long seed) {
    CuckooFuzzer.cuckooHashTable(seed);
  }
}
