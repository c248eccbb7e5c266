package io.bbfindex.benchmarks.follow;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * Where the lookup thread's wall time went over some measured windows: on a core (its CPU time),
 * parked (a lock wait), or stopped by a garbage collection. Time on a core that yields fewer
 * lookups than in a quiet window is memory traffic (cache misses) or the sibling's share of the
 * core; time off a core is a wait, a pause or another thread taking the core.
 */
final class LookupThreadCosts {
  /** A measured window of lookups, run on the lookup thread (the caller of {@link #measure}). */
  interface Window {
    double run() throws Exception;
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private double lookups;
  private long wallNanos;
  private long cpuNanos;
  private long waitedMillis;
  private long waits;
  private long gcPauses;
  private long gcMillis;

  static {
    if (THREADS.isThreadContentionMonitoringSupported()) {
      THREADS.setThreadContentionMonitoringEnabled(true);
    }
  }

  /**
   * Runs {@code window} on this thread and adds what it cost; returns its result (lookups per
   * second over the window).
   */
  double measure(Window window) throws Exception {
    ThreadInfo before = THREADS.getThreadInfo(Thread.currentThread().threadId());
    long gcCount = gcCount();
    long gcTime = gcMillis();
    long cpu = THREADS.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    double result = window.run();
    long wall = System.nanoTime() - t0;
    wallNanos += wall;
    lookups += result * wall / 1e9;
    cpuNanos += THREADS.getCurrentThreadCpuTime() - cpu;
    ThreadInfo after = THREADS.getThreadInfo(Thread.currentThread().threadId());
    waitedMillis += Math.max(0, after.getWaitedTime() - before.getWaitedTime());
    waits += after.getWaitedCount() - before.getWaitedCount();
    gcPauses += gcCount() - gcCount;
    gcMillis += gcMillis() - gcTime;
    return result;
  }

  private static long gcCount() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionCount());
    }
    return n;
  }

  private static long gcMillis() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionTime());
    }
    return n;
  }

  /** Lookups per second of the lookup thread's CPU time (0 before any window). */
  double lookupsPerCpuSecond() {
    return cpuNanos == 0 ? 0 : lookups / (cpuNanos / 1e9);
  }

  double cpuShare() {
    return wallNanos == 0 ? 0 : (double) cpuNanos / wallNanos;
  }

  double gcShare() {
    return wallNanos == 0 ? 0 : gcMillis * 1e6 / wallNanos;
  }

  double waitedShare() {
    return wallNanos == 0 ? 0 : waitedMillis * 1e6 / wallNanos;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "wall %.0f ms, on a core %.1f %%, parked %d times for %d ms (%.1f %%), "
            + "%d GC pauses for %d ms (%.1f %%)",
        wallNanos / 1e6,
        100 * cpuShare(),
        waits,
        waitedMillis,
        100 * waitedShare(),
        gcPauses,
        gcMillis,
        100 * gcShare());
  }
}
