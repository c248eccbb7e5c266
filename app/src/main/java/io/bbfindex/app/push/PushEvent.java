package io.bbfindex.app.push;

import java.util.Map;
import java.util.Objects;

/**
 * One notification, the same for every subscriber of its topic: built once, written to each.
 *
 * @param id increasing over the server's life ({@code Last-Event-ID} resumes after it)
 * @param topic a txid (display hex) or {@link PushHub#BLOCKS}
 * @param kind {@code mempool}, {@code confirmed}, {@code unconfirmed}, {@code replaced}, {@code
 *     removed}, {@code stale}, {@code unknown} for a tx; {@code connected}, {@code disconnected}
 *     for a block
 * @param data the event's fields (JSON object)
 * @param observedNanos {@link System#nanoTime()} when the follower applied the change (the notify
 *     latency counts from it); 0 for a current-state event
 */
public record PushEvent(
    long id, String topic, String kind, Map<String, Object> data, long observedNanos) {
  /**
   * The field of an event about the follower rather than the tx: {@code stale} when it lost its
   * node ({@code "node unreachable"}), the state sent again when it follows it ({@code
   * "following"}).
   */
  public static final String FOLLOW = "follow";

  public PushEvent {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(kind, "kind");
    data = Map.copyOf(data);
  }

  /**
   * Whether this event is about the follower's node (lost, or found again with the tx's state
   * unchanged), not a change of the tx itself.
   */
  public boolean aboutFollower() {
    return data.containsKey(FOLLOW);
  }

  /** Whether this event reports a change (not a current state sent on subscribing). */
  public boolean live() {
    return observedNanos != 0;
  }
}
