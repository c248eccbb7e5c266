package io.bbfindex.filters.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
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
 * The experiment behind the shape of {@code BlockedBloomFilter.mightContainBatch}: the BBF_SIMD
 * layout (lw = 32, k = 8, 32-byte groups, group = (low 32 bits of L2 * r) >>> 32, bit of word i =
 * key byte i AND 31) rebuilt on a private array, so that alternative loops can be timed against
 * each other and against the independent cache-line read ({@link LineReadBenchmark}) in one run.
 *
 * <ul>
 *   <li>{@code singlePass}: the shape the filter's batches have (a loop over its single-key
 *       lookup): each key's group loaded and tested with the key-bytes kernel (about 16
 *       instructions, no data-dependent branch), so the CPU runs ahead through later keys while a
 *       load misses.
 *   <li>{@code touchThenTest}: per block of 256 keys, first compute each group offset and touch the
 *       line (about 8 instructions a key, as lean as the line read), then test from cache. Each
 *       block's touches must complete before its tests retire, so the pipeline drains once a block.
 *   <li>{@code laneBroadcast}: the single pass with the mask built the older way (broadcast the
 *       64-bit lane, blend the halves, shift right by a per-lane vector): what the key-bytes
 *       formulation saves.
 * </ul>
 *
 * <p>Measured while choosing (2-core AMD EPYC VM, n = 10^7, 16 MiB array, ns a key, 5 x 0.5 s):
 * single pass 5.7-6.2, touch-then-test 6.8-8.8 (blocks of 64 to 1024), cache-line read 4.2-4.8.
 *
 * <p>Run: {@code java --add-modules=jdk.incubator.vector -cp filters/target/jmh/benchmarks.jar
 * org.openjdk.jmh.Main BatchShapeBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx3g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class BatchShapeBenchmark {

  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
  private static final VectorSpecies<Byte> KEY_BYTES = ByteVector.SPECIES_64;
  private static final VectorSpecies<Integer> S = IntVector.SPECIES_256;
  private static final IntVector ONES = IntVector.broadcast(S, 1);
  private static final IntVector HALF_SHIFTS =
      IntVector.fromArray(S, new int[] {0, 8, 16, 24, 0, 8, 16, 24}, 0);
  private static final VectorMask<Integer> UPPER_FOUR = VectorMask.fromLong(S, 0xF0L);
  private static final int BLOCK = 256;

  /** A BBF-layout array holding n member keys, and the usual probe arrays. */
  @State(Scope.Thread)
  public static class ShapeState extends ProbeState {
    @Param({"10000000"})
    public long n;

    public MemorySegment bits;

    /** r: the group index is the BBF's multiply-shift (format v2) of the key's group bits. */
    public long groups;

    private Arena arena;
    final long[] offsets = new long[BLOCK];

    @Setup(Level.Trial)
    public void setUp() {
      long groups =
          io.bbfindex.filters.catalog.FilterType.bbfGeometry(n, BenchFilter.BITS_PER_KEY, 8, 32)
              .groups();
      this.groups = groups;
      arena = Arena.ofShared();
      bits = arena.allocate(groups * 32, 64);
      byte[] chunk = new byte[4096 * BenchKeys.KEY];
      for (long first = 0; first < n; first += 4096) {
        int count = (int) Math.min(4096, n - first);
        BenchKeys.fill(BenchKeys.MEMBER_SEED, first, count, chunk);
        for (int i = 0; i < count; i++) {
          long at = offset(chunk, i * BenchKeys.KEY, groups);
          for (int w = 0; w < 8; w++) {
            long word = at + 4L * w;
            bits.set(LE_INT, word, bits.get(LE_INT, word) | (1 << chunk[i * BenchKeys.KEY + w]));
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

  private static long offset(byte[] keys, int at, long groups) {
    return (((BenchKeys.lane2(keys, at) & 0xFFFF_FFFFL) * groups) >>> 32) << 5;
  }

  /** The key-bytes kernel: positions sign-extended straight from the key into the lanes. */
  private static boolean testKeyBytes(MemorySegment bits, long at, byte[] keys, int key) {
    IntVector m =
        ONES.lanewise(
            VectorOperators.LSHL,
            (IntVector)
                ByteVector.fromArray(KEY_BYTES, keys, key).convertShape(VectorOperators.B2I, S, 0));
    return m.and(IntVector.fromMemorySegment(S, bits, at, LE))
        .compare(VectorOperators.EQ, m)
        .allTrue();
  }

  /** The older mask: broadcast the lane, blend its halves, shift by a vector. */
  private static boolean testLaneBroadcast(MemorySegment bits, long at, long lane0) {
    IntVector positions =
        IntVector.broadcast(S, (int) lane0)
            .blend((int) (lane0 >>> 32), UPPER_FOUR)
            .lanewise(VectorOperators.LSHR, HALF_SHIFTS);
    IntVector m = ONES.lanewise(VectorOperators.LSHL, positions);
    return m.and(IntVector.fromMemorySegment(S, bits, at, LE))
        .compare(VectorOperators.EQ, m)
        .allTrue();
  }

  /** The filter's loop: each key loaded and tested in turn. */
  static void singlePass(ShapeState s, byte[] keys, int count, boolean[] out) {
    for (int i = 0; i < count; i++) {
      int key = i * BenchKeys.KEY;
      out[i] = testKeyBytes(s.bits, offset(keys, key, s.groups), keys, key);
    }
  }

  /** Touch a block's lines with the least work, then test them; {@code count} a multiple of 256. */
  static long touchThenTest(ShapeState s, byte[] keys, int count, boolean[] out) {
    long sink = 0;
    for (int base = 0; base < count; base += BLOCK) {
      for (int j = 0; j < BLOCK; j++) {
        long at = offset(keys, (base + j) * BenchKeys.KEY, s.groups);
        s.offsets[j] = at;
        sink += s.bits.get(ValueLayout.JAVA_BYTE, at); // the load that starts the miss
      }
      for (int j = 0; j < BLOCK; j++) {
        out[base + j] = testKeyBytes(s.bits, s.offsets[j], keys, (base + j) * BenchKeys.KEY);
      }
    }
    return sink;
  }

  /** The single pass with the broadcast-lane mask. */
  static void laneBroadcast(ShapeState s, byte[] keys, int count, boolean[] out) {
    for (int i = 0; i < count; i++) {
      out[i] =
          testLaneBroadcast(
              s.bits, offset(keys, i * BenchKeys.KEY, s.groups), BenchKeys.lane0(keys, i));
    }
  }

  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int singlePassNegative(ShapeState s, Hits h) {
    singlePass(s, s.nextBatch(s.negativeBatches), ProbeState.BATCH, s.out);
    return h.batch(s.out, ProbeState.BATCH);
  }

  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public long touchThenTestNegative(ShapeState s, Hits h) {
    long sink = touchThenTest(s, s.nextBatch(s.negativeBatches), ProbeState.BATCH, s.out);
    return sink + h.batch(s.out, ProbeState.BATCH);
  }

  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int laneBroadcastNegative(ShapeState s, Hits h) {
    laneBroadcast(s, s.nextBatch(s.negativeBatches), ProbeState.BATCH, s.out);
    return h.batch(s.out, ProbeState.BATCH);
  }
}
