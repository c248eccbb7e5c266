package io.bbfindex.ingest.testing;

import java.lang.management.ManagementFactory;

/**
 * Measures what the current thread allocates around a piece of work (HotSpot's per-thread
 * allocation counter), so a fuzz target can assert that a decoder's allocation is bounded by its
 * input: a length field trusted before it is checked shows up as an allocation far larger than the
 * bytes that were read.
 */
public final class AllocationBudget {

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private final long start;

  private AllocationBudget() {
    this.start = THREADS.getCurrentThreadAllocatedBytes();
  }

  /** Starts counting from now. */
  public static AllocationBudget start() {
    return new AllocationBudget();
  }

  /** Bytes the current thread allocated since {@link #start()}. */
  public long allocated() {
    return THREADS.getCurrentThreadAllocatedBytes() - start;
  }

  /**
   * Fails unless the thread allocated at most {@code fixedBytes + perInputByte * inputBytes} since
   * {@link #start()}.
   */
  public void check(String what, long inputBytes, long fixedBytes, long perInputByte) {
    long used = allocated();
    long budget = fixedBytes + perInputByte * inputBytes;
    if (used > budget) {
      throw new AssertionError(
          what
              + " allocated "
              + used
              + " bytes for a "
              + inputBytes
              + "-byte input (budget "
              + budget
              + ")");
    }
  }
}
