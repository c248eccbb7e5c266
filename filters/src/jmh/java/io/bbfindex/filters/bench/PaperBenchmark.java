package io.bbfindex.filters.bench;

import io.bbfindex.filters.catalog.FilterType;
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
 * The paper's lookup experiments (Fan and Niu, section 3): BF, OMBF, BBF scalar and BBF SIMD with
 * {@code k} bits a key, an m-bit table holding n = fill * m keys.
 *
 * <ul>
 *   <li>Fig. 6: m = 10^6, fill = 0.1 (n = 10^5), k in {2, 4, 8, 16}.
 *   <li>Fig. 7: k = 8, fill = 0.1, m from 2^15 bits (L1) to 2^30 bits (DRAM).
 * </ul>
 *
 * BF and OMBF get exactly m bits; the BBF gets the power of two nearest m (2^20 for m = 10^6, 4.9 %
 * more, which does not change what is cached) with lw = 64, or lw = 32 for k = 16 ({@link
 * FilterType#bbfGeometry}).
 *
 * <p>Run: {@code ./bbf-index bench paper [--quick]}, or {@code java
 * --add-modules=jdk.incubator.vector -cp filters/target/jmh/benchmarks.jar org.openjdk.jmh.Main
 * PaperBenchmark -p k=8}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx3g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class PaperBenchmark {

  /** One filled filter of the paper's four. */
  @State(Scope.Thread)
  public static class PaperState extends ProbeState {
    @Param({"BLOOM", "OMBF", "BBF_SCALAR", "BBF_SIMD"})
    public String type;

    @Param({"2", "4", "8", "16"})
    public int k;

    @Param({"1000000"})
    public long mBits;

    @Param({"0.1"})
    public double fill;

    @Setup(Level.Trial)
    public void setUp() {
      long n = Math.max(1, Math.round(mBits * fill));
      FilterType filterType = FilterType.valueOf(type);
      if (filterType == FilterType.BBF_SIMD
          && !io.bbfindex.filters.BlockedBloomFilter.isKernelAvailable(
              io.bbfindex.filters.BlockedBloomFilter.Kernel.VECTOR)) {
        throw new IllegalStateException(
            "BBF_SIMD needs the Vector API: run the JVM with --add-modules=jdk.incubator.vector");
      }
      filter = filterType.create(n, (double) mBits / n, k);
      BenchFilter.Fill.insert(filter, n, BenchKeys.MEMBER_SEED);
      prepareKeys(n);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      closeFilter();
    }
  }

  /**
   * {@value ProbeState#BATCH} member keys (the paper's positive queries), one {@code mightContain}
   * call each; time per key. The paper reports searches per second over many queries, so the
   * queries run back to back as in {@link FilterBenchmark#positiveLoop}.
   */
  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int positive(PaperState s, Hits h) {
    return h.add(FilterBenchmark.loop(s.filter, s.nextBatch(s.positiveBatches)), ProbeState.BATCH);
  }

  /** {@link #positive} with foreign keys (the paper's negative queries). */
  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int negative(PaperState s, Hits h) {
    return h.add(FilterBenchmark.loop(s.filter, s.nextBatch(s.negativeBatches)), ProbeState.BATCH);
  }
}
