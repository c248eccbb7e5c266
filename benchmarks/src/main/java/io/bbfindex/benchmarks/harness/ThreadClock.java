package io.bbfindex.benchmarks.harness;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Wall time and the CPU time of the measuring thread, side by side. On this 2-core machine shared
 * with other work (load averages of 10+), a single-threaded loop gets a fraction of a core: wall
 * rates then measure the machine's load, CPU-time rates (what the loop would do on a core of its
 * own) measure the code. JNI calls (leveldbjni) run on the calling thread, so their CPU is counted.
 */
public record ThreadClock(long wallNanos, long cpuNanos) {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  public static ThreadClock now() {
    return new ThreadClock(
        System.nanoTime(),
        THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1);
  }

  /** Time since {@code start} (this = now). */
  public ThreadClock since(ThreadClock start) {
    return new ThreadClock(
        wallNanos - start.wallNanos, cpuNanos < 0 ? -1 : cpuNanos - start.cpuNanos);
  }

  /** Operations per wall second. */
  public double perWallSecond(long ops) {
    return ops / (wallNanos / 1e9);
  }

  /** Operations per CPU second of the thread (falls back to wall when CPU time is unsupported). */
  public double perCpuSecond(long ops) {
    return cpuNanos <= 0 ? perWallSecond(ops) : ops / (cpuNanos / 1e9);
  }
}
