package io.bbfindex.filters.bench;

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
 * Lookups and inserts of every {@link BenchFilter} on 32-byte keys, in cache (n = 10^5, about 125
 * KB) and beyond it (n = 10^7, 12-17 MB), at 10 bits a key. Time per key (ns/op); batch methods are
 * normalised per key ({@link OperationsPerInvocation}).
 *
 * <p>Run: {@code ./bbf-index bench filters [--quick]} (which also prints the ratios), or directly
 * {@code java --add-modules=jdk.incubator.vector -cp filters/target/jmh/benchmarks.jar
 * org.openjdk.jmh.Main FilterBenchmark -p type=BBF_SIMD,BLOOM_K8 -p n=100000}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx3g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class FilterBenchmark {

  /** A filled filter of one type and size, with its probe arrays. */
  @State(Scope.Thread)
  public static class FilterState extends ProbeState {
    @Param({
      "BBF_SIMD",
      "BBF_SCALAR",
      "BBF_SIMD_LW64",
      "BLOOM_K8",
      "OMBF",
      "TWO_BIT",
      "CUCKOO",
      "GUAVA",
      "FASTFILTER_BLOCKED"
    })
    public String type;

    @Param({"100000", "10000000"})
    public long n;

    /** The cuckoo filter removes each key it inserts, so its load stays at n. */
    public boolean removeAfterInsert;

    @Setup(Level.Trial)
    public void setUp() {
      filter = BenchFilter.valueOf(type).build(n, BenchKeys.MEMBER_SEED);
      removeAfterInsert = filter.supportsRemove();
      prepareKeys(n);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      closeFilter();
    }
  }

  /** One member key: must always answer true. */
  @Benchmark
  public boolean positive(FilterState s, Hits h) {
    boolean hit = s.filter.mightContain(s.positives, s.nextOffset());
    h.one(hit);
    return hit;
  }

  /** One foreign key: true only at the false-positive rate. */
  @Benchmark
  public boolean negative(FilterState s, Hits h) {
    boolean hit = s.filter.mightContain(s.negatives, s.nextOffset());
    h.one(hit);
    return hit;
  }

  /**
   * {@value ProbeState#BATCH} member keys, one {@code mightContain} call each, in one invocation;
   * time per key: the inverse of the paper's metric, searches per second. The same single-key calls
   * as {@link #positive}, without JMH's bookkeeping between them (1.1-1.6 ns an invocation in
   * {@code ./bbf-index bench filters --quick}, docs/benchmarks.md "Filters"), with successive
   * lookups free to overlap as in a caller's loop, and with what does not change from key to key
   * (field loads, type checks, the bit array's MemorySegment bounds and liveness checks: a BBF's
   * call is about 75 instructions alone, about 17 in a loop, in hsdis output of these benchmarks)
   * hoisted.
   */
  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int positiveLoop(FilterState s, Hits h) {
    return h.add(loop(s.filter, s.nextBatch(s.positiveBatches)), ProbeState.BATCH);
  }

  /** {@link #positiveLoop} with foreign keys. */
  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int negativeLoop(FilterState s, Hits h) {
    return h.add(loop(s.filter, s.nextBatch(s.negativeBatches)), ProbeState.BATCH);
  }

  /** {@value ProbeState#BATCH} single-key lookups of {@code keys}; returns the hits. */
  static int loop(io.bbfindex.filters.MembershipFilter filter, byte[] keys) {
    int hits = 0;
    for (int i = 0; i < ProbeState.BATCH; i++) {
      hits += filter.mightContain(keys, i * BenchKeys.KEY) ? 1 : 0;
    }
    return hits;
  }

  /**
   * {@value ProbeState#BATCH} member keys per {@code mightContainBatch} call, verdicts as a bitmap
   * ({@code long[]}); time per key.
   */
  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int positiveBatch(FilterState s, Hits h) {
    int hits =
        s.filter.mightContainBatch(s.nextBatch(s.positiveBatches), ProbeState.BATCH, s.maybe);
    return h.add(hits, ProbeState.BATCH);
  }

  /** {@link #positiveBatch} with foreign keys. */
  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int negativeBatch(FilterState s, Hits h) {
    int hits =
        s.filter.mightContainBatch(s.nextBatch(s.negativeBatches), ProbeState.BATCH, s.maybe);
    return h.add(hits, ProbeState.BATCH);
  }

  /** {@link #negativeBatch} with one {@code boolean} a verdict: the other batch form. */
  @Benchmark
  @OperationsPerInvocation(ProbeState.BATCH)
  public int negativeBatchBooleans(FilterState s, Hits h) {
    s.filter.mightContainBatch(s.nextBatch(s.negativeBatches), ProbeState.BATCH, s.out);
    return h.batch(s.out, ProbeState.BATCH);
  }

  /**
   * Inserts one of {@value ProbeState#PROBES} extra keys into the filled filter, cycling: the Bloom
   * variants OR their bits unconditionally, so a second pass costs what the first did (Guava skips
   * the CAS of a bit already set: its later passes are a little cheaper). The cuckoo filter removes
   * the key again at once, so its load stays at n: its figure is insert + remove.
   */
  @Benchmark
  public boolean insert(FilterState s) {
    int at = s.nextOffset();
    boolean added = s.filter.add(s.extras, at);
    if (s.removeAfterInsert) {
      s.filter.remove(s.extras, at);
    }
    return added;
  }
}
