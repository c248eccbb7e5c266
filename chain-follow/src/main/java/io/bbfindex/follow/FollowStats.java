package io.bbfindex.follow;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;

/**
 * Counters of the follower, read by the app's metrics. Monotonic counters only; the gauges (lag,
 * sizes, loads) are read from {@link Follower} itself.
 */
public final class FollowStats {
  /** Upper bounds of the reorg-depth histogram buckets; the last bucket takes everything deeper. */
  public static final int[] REORG_DEPTH_BOUNDS = {1, 2, 3, 6, 10, 100};

  final AtomicLong blocksConnected = new AtomicLong();
  final AtomicLong blocksDisconnected = new AtomicLong();
  final AtomicLong mempoolResyncs = new AtomicLong();
  final AtomicLong zmqGaps = new AtomicLong();
  final AtomicLongArray reorgDepths = new AtomicLongArray(REORG_DEPTH_BOUNDS.length + 1);
  private final List<IntConsumer> reorgListeners = new CopyOnWriteArrayList<>();

  public long blocksConnected() {
    return blocksConnected.get();
  }

  public long blocksDisconnected() {
    return blocksDisconnected.get();
  }

  public long mempoolResyncs() {
    return mempoolResyncs.get();
  }

  public long zmqGaps() {
    return zmqGaps.get();
  }

  /**
   * Reorgs seen with depth at most {@code REORG_DEPTH_BOUNDS[i]} (and more than the previous
   * bound); index {@code length} counts deeper ones.
   */
  public long reorgs(int bucket) {
    return reorgDepths.get(bucket);
  }

  /**
   * Calls {@code listener} with the depth of every reorg recorded from now on (the app feeds its
   * depth histogram from it; this module knows no metrics library).
   */
  public void onReorg(IntConsumer listener) {
    reorgListeners.add(listener);
  }

  void recordReorg(int depth) {
    for (IntConsumer l : reorgListeners) {
      l.accept(depth);
    }
    int b = 0;
    while (b < REORG_DEPTH_BOUNDS.length && depth > REORG_DEPTH_BOUNDS[b]) {
      b++;
    }
    reorgDepths.incrementAndGet(b);
  }
}
