package io.bbfindex.filters.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
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
 * The memory limit a filter lookup is held to: reading one random cache line, with the line chosen
 * exactly as the BBF chooses its group (bytes 16..23 of a foreign key AND (lines - 1)) from the
 * same probe keys, over a 64-byte aligned off-heap array. The reads are independent (no address
 * depends on a previous load), so the CPU overlaps as many misses as it can: this is the floor for
 * any structure that touches one line per key.
 *
 * <p>{@code bytes} = 16 MiB is the size of the BBF at n = 10^7 (2^18 groups of 64 bytes), the
 * like-for-like limit; 1 GiB is far beyond any cache.
 *
 * <p>Run: {@code ./bbf-index bench filters}, or {@code java --add-modules=jdk.incubator.vector -cp
 * filters/target/jmh/benchmarks.jar org.openjdk.jmh.Main LineReadBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx3g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class LineReadBenchmark {

  private static final ValueLayout.OfLong LE_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** A random-filled, 64-byte aligned array of {@code bytes} bytes. */
  @State(Scope.Thread)
  public static class LineState extends ProbeState {
    @Param({"16777216", "1073741824"})
    public long bytes;

    public MemorySegment lines;
    public long lineMask;
    private Arena arena;

    @Setup(Level.Trial)
    public void setUp() {
      if (bytes < 64 || Long.bitCount(bytes) != 1) {
        throw new IllegalArgumentException("bytes must be a power of two >= 64: " + bytes);
      }
      arena = Arena.ofShared();
      lines = arena.allocate(bytes, 64);
      java.util.SplittableRandom random = new java.util.SplittableRandom(bytes);
      for (long at = 0; at < bytes; at += 8) {
        lines.set(
            LE_LONG, at, random.nextLong()); // touches every page: no first-touch faults later
      }
      lineMask = bytes / 64 - 1;
      prepareKeys(1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      arena.close();
    }

    /** First 8 bytes of the line the key at {@code offset} of {@code keys} picks. */
    public long read(byte[] keys, int offset) {
      return lines.get(LE_LONG, (BenchKeys.lane2(keys, offset) & lineMask) << 6);
    }
  }

  /** One random line per invocation. */
  @Benchmark
  public long lineRead(LineState s) {
    return s.read(s.negatives, s.nextOffset());
  }

  /** {@value ProbeState#BATCH} random lines per invocation, as the batch lookups; time per line. */
  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public long lineReadBatch(LineState s) {
    byte[] keys = s.nextBatch(s.negativeBatches);
    long acc = 0;
    for (int i = 0; i < ProbeState.BATCH; i++) {
      acc ^= s.read(keys, i * BenchKeys.KEY);
    }
    return acc;
  }
}
