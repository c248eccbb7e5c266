package io.bbfindex.follow.events;

/**
 * Receives the follower's events from {@link FollowEvents}' own thread, in order, with {@link
 * Removal} resolved for watched txids. Must not block: hand the work on.
 */
@FunctionalInterface
public interface ChainListener {
  /**
   * @param event the change
   * @param observedNanos {@link System#nanoTime()} when the follower published it (for latency)
   */
  void onEvent(ChainEvent event, long observedNanos);
}
