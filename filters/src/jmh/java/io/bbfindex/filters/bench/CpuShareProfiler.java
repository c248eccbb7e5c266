package io.bbfindex.filters.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Reports {@code cpu.share}: the CPU time the benchmark threads got during an iteration divided by
 * the iteration's wall time. On a quiet machine it is 1.0; on a 2-core machine shared with other
 * builds it falls (0.3 was seen, as {@code cpu_share_min} of {@code bench filters}), and a time per
 * operation measured by the wall clock is inflated by 1 / share. {@link FilterBenchMain} multiplies
 * the score by it ("CPU-time ns") so ratios taken minutes apart stay comparable; it removes time
 * slicing, not cache interference.
 */
public final class CpuShareProfiler implements InternalProfiler {

  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> cpuAtStart = new HashMap<>();
  private long wallAtStart;

  @Override
  public String getDescription() {
    return "share of a CPU the benchmark threads got (thread CPU time / wall time)";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpuAtStart.clear();
    for (Thread t : workers()) {
      cpuAtStart.put(t.threadId(), threads.getThreadCpuTime(t.threadId()));
    }
    wallAtStart = System.nanoTime();
  }

  @Override
  public List<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long wall = System.nanoTime() - wallAtStart;
    long cpu = 0;
    int workers = 0;
    for (Thread t : workers()) {
      long now = threads.getThreadCpuTime(t.threadId());
      if (now >= 0) {
        cpu += now - cpuAtStart.getOrDefault(t.threadId(), 0L);
        workers++;
      }
    }
    double share = workers == 0 || wall <= 0 ? Double.NaN : (double) cpu / wall / workers;
    return List.of(new ScalarResult("cpu.share", share, "share", AggregationPolicy.AVG));
  }

  private static List<Thread> workers() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().contains("jmh-worker"))
        .toList();
  }
}
