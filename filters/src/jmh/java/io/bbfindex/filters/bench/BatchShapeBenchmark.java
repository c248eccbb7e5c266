package io.bbfindex.filters.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * An experiment behind a proposed change to {@code BlockedBloomFilter.mightContainBatch} (owned
 * by the BBF kernel, so not changed here): the same bit layout (lw = 64, k = 8, 64-byte groups,
 * group = L2 AND (r - 1), bit of word i = byte i of L0), rebuilt on a private array so two batch
 * shapes can be timed against each other and against the cache-line read.
 *
 * <ul>
 *   <li>{@code twoPhase}: the shape of the present code: phase 1 derives every lane and loads each
 *       group's first 8 bytes into arrays; phase 2 rejects on that word, else runs the vector test
 *       (early exit per 256-bit chunk).
 *   <li>{@code touchThenTest}: phase 1 only computes the group offset and touches the line (about
 *       8 instructions a key, so the reorder buffer holds three times as many misses); phase 2
 *       derives the positions and tests both chunks with no data-dependent branch.
 * </ul>
 *
 * <p>Measured (2-core AMD EPYC VM, n = 10^7, ns a key): with the machine shared (CPU share 0.3)
 * touch-then-test took 8-11 CPU-ns against 15-19 for two-phase; on the quiet machine (share 0.95,
 * 3 forks) 29 +- 10 against 16 +- 4. So no conclusion yet: the proposed shape is not a proven
 * gain, and this class stays an experiment, not a recommendation.
 *
 * <p>Run: {@code java --add-modules=jdk.incubator.vector -cp filters/target/benchmarks.jar
 * org.openjdk.jmh.Main BatchShapeBenchmark -f 3}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx3g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class BatchShapeBenchmark {

  private static final ValueLayout.OfLong LE_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  private static final VectorSpecies<Long> S = LongVector.SPECIES_256;
  private static final long[] SHIFTS = {0, 8, 16, 24, 32, 40, 48, 56};
  private static final int BLOCK = 32;

  /** A BBF-layout array holding n member keys, and the usual probe arrays. */
  @State(Scope.Thread)
  public static class ShapeState extends ProbeState {
    @Param({"10000000"})
    public long n;

    public MemorySegment bits;
    public long groupMask;
    private Arena arena;
    final long[] offsets = new long[BLOCK];
    final long[] lanes0 = new long[BLOCK];
    final long[] firstWords = new long[BLOCK];

    @Setup(Level.Trial)
    public void setUp() {
      long groups = io.bbfindex.filters.FilterType.bbfGeometry(n, BenchFilter.BITS_PER_KEY, 8).groups();
      groupMask = groups - 1;
      arena = Arena.ofShared();
      bits = arena.allocate(groups * 64, 64);
      byte[] chunk = new byte[4096 * BenchKeys.KEY];
      for (long first = 0; first < n; first += 4096) {
        int count = (int) Math.min(4096, n - first);
        BenchKeys.fill(BenchKeys.MEMBER_SEED, first, count, chunk);
        for (int i = 0; i < count; i++) {
          long at = (BenchKeys.lane2(chunk, i * 32) & groupMask) << 6;
          long lane0 = BenchKeys.lane0(chunk, i);
          for (int w = 0; w < 8; w++) {
            long word = at + 8L * w;
            bits.set(LE_LONG, word, bits.get(LE_LONG, word) | (1L << (lane0 >>> (8 * w))));
          }
        }
      }
      prepareKeys(n);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      arena.close();
    }
  }

  private static LongVector mask(long lane0, int firstWord) {
    LongVector positions = LongVector.broadcast(S, lane0)
        .lanewise(VectorOperators.LSHR, LongVector.fromArray(S, SHIFTS, firstWord));
    return LongVector.broadcast(S, 1L).lanewise(VectorOperators.LSHL, positions);
  }

  /** The present kernel's test: chunk by chunk, leaving at the first chunk with a clear bit. */
  private static boolean testEarlyExit(MemorySegment bits, long at, long lane0) {
    for (int c = 0; c < 2; c++, at += 32) {
      LongVector missing = mask(lane0, 4 * c)
          .lanewise(VectorOperators.AND_NOT, LongVector.fromMemorySegment(S, bits, at, LE));
      if (!missing.compare(VectorOperators.EQ, 0L).allTrue()) {
        return false;
      }
    }
    return true;
  }

  /** Both chunks, one combined test, no branch on the data before the answer. */
  private static boolean testBranchFree(MemorySegment bits, long at, long lane0) {
    LongVector missing0 = mask(lane0, 0)
        .lanewise(VectorOperators.AND_NOT, LongVector.fromMemorySegment(S, bits, at, LE));
    LongVector missing1 = mask(lane0, 4)
        .lanewise(VectorOperators.AND_NOT, LongVector.fromMemorySegment(S, bits, at + 32, LE));
    return missing0.or(missing1).compare(VectorOperators.EQ, 0L).allTrue();
  }

  /** The shape of BlockedBloomFilter.mightContainBatch today (lw = 64, k = 8, unsalted). */
  static void twoPhase(ShapeState s, byte[] keys, int count, boolean[] out) {
    for (int base = 0; base < count; base += BLOCK) {
      for (int j = 0; j < BLOCK; j++) {
        int o = (base + j) * BenchKeys.KEY;
        long at = (BenchKeys.lane2(keys, o) & s.groupMask) << 6;
        s.offsets[j] = at;
        s.lanes0[j] = BenchKeys.lane0(keys, base + j);
        s.firstWords[j] = s.bits.get(LE_LONG, at);
      }
      for (int j = 0; j < BLOCK; j++) {
        long need = 1L << s.lanes0[j];
        out[base + j] = (s.firstWords[j] & need) == need
            && testEarlyExit(s.bits, s.offsets[j], s.lanes0[j]);
      }
    }
  }

  /** Proposed: touch the lines with the least work, then test branch-free. */
  static long touchThenTest(ShapeState s, byte[] keys, int count, boolean[] out) {
    long sink = 0;
    for (int base = 0; base < count; base += BLOCK) {
      for (int j = 0; j < BLOCK; j++) {
        long at = (BenchKeys.lane2(keys, (base + j) * BenchKeys.KEY) & s.groupMask) << 6;
        s.offsets[j] = at;
        sink += s.bits.get(ValueLayout.JAVA_BYTE, at); // the load that starts the miss
      }
      for (int j = 0; j < BLOCK; j++) {
        out[base + j] = testBranchFree(s.bits, s.offsets[j], BenchKeys.lane0(keys, base + j));
      }
    }
    return sink;
  }

  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int twoPhaseNegative(ShapeState s, Hits h) {
    twoPhase(s, s.nextBatch(s.negativeBatches), ProbeState.BATCH, s.out);
    return h.batch(s.out, ProbeState.BATCH);
  }

  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public long touchThenTestNegative(ShapeState s, Hits h) {
    long sink = touchThenTest(s, s.nextBatch(s.negativeBatches), ProbeState.BATCH, s.out);
    return sink + h.batch(s.out, ProbeState.BATCH);
  }
}
