package io.bbfindex.app.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ring a reconnect resumes from: every event of its topic after the id while the ring holds
 * them all, and no answer (the current state instead) once it dropped one or for an id it never
 * gave out.
 */
class EventRingTest {
  private static PushEvent event(long id, String topic) {
    return new PushEvent(id, topic, "confirmed", Map.of(), 1);
  }

  @Test
  void resumesWithTheTopicsEventsAfterTheIdWhileTheRingHoldsThemAll() {
    EventRing ring = new EventRing(4, 100);
    ring.append(event(ring.nextId(), "a")); // 100
    ring.append(event(ring.nextId(), "b")); // 101
    ring.append(event(ring.nextId(), "a")); // 102
    assertEquals(List.of(102L), ids(ring.since("a", 100).orElseThrow()));
    assertEquals(List.of(100L, 102L), ids(ring.since("a", 99).orElseThrow()));
    assertEquals(List.of(), ids(ring.since("a", 102).orElseThrow()), "nothing missed");
    assertTrue(ring.since("a", 103).isEmpty(), "an id never given out");

    ring.append(event(ring.nextId(), "b")); // 103
    ring.append(event(ring.nextId(), "a")); // 104: 100 dropped
    assertTrue(ring.since("a", 99).isEmpty(), "event 100 is gone: no resume with a gap");
    assertEquals(List.of(102L, 104L), ids(ring.since("a", 100).orElseThrow()));
    assertEquals(104, ring.lastId());
  }

  private static List<Long> ids(List<PushEvent> events) {
    return events.stream().map(PushEvent::id).toList();
  }
}
