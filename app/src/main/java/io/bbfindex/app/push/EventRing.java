package io.bbfindex.app.push;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The most recent events of every topic, so that a client that reconnects with {@code
 * Last-Event-ID} gets what it missed. Bounded: a client away for longer than the ring covers gets
 * the current state instead (never a gap it cannot see). Not thread-safe: {@link PushHub} guards
 * it.
 */
final class EventRing {
  private final int capacity;
  private final Deque<PushEvent> events = new ArrayDeque<>();

  /** Id of the newest event ever appended (also counted when the ring dropped it). */
  private long lastId;

  EventRing(int capacity, long firstId) {
    this.capacity = capacity;
    this.lastId = firstId - 1;
  }

  long lastId() {
    return lastId;
  }

  long nextId() {
    return lastId + 1;
  }

  void append(PushEvent e) {
    if (events.size() == capacity) {
      events.removeFirst();
    }
    events.addLast(e);
    lastId = e.id();
  }

  /**
   * The events of {@code topic} after {@code afterId}, oldest first; empty if the ring no longer
   * holds every event after it (or the id was never given out here: another server's, or a
   * restart's before).
   */
  Optional<List<PushEvent>> since(String topic, long afterId) {
    long oldestHeld = events.isEmpty() ? lastId + 1 : events.peekFirst().id();
    if (afterId < oldestHeld - 1 || afterId > lastId) {
      return Optional.empty();
    }
    List<PushEvent> missed = new ArrayList<>();
    for (PushEvent e : events) {
      if (e.id() > afterId && e.topic().equals(topic)) {
        missed.add(e);
      }
    }
    return Optional.of(missed);
  }
}
