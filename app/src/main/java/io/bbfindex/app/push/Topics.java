package io.bbfindex.app.push;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Who listens to which topic (a txid, a hash, {@code blocks}), and the topics that lost their last
 * listener, since when: such a topic is remembered for a while so that a client reconnecting with
 * {@code Last-Event-ID} resumes instead of starting over. The bookkeeping {@link PushHub} and
 * {@link EthPushHub} share; not thread-safe: each hub calls it under its own lock.
 */
final class Topics {
  private final Map<String, Set<Subscriber>> byTopic = new HashMap<>();

  /** Topics without a listener, since when ({@link System#nanoTime()}). */
  private final Map<String, Long> lingeringSince = new HashMap<>();

  private final long lingerNanos;

  Topics(Duration linger) {
    this.lingerNanos = linger.toNanos();
  }

  /** {@code s} listens to {@code topic} from now on; the topic no longer lingers. */
  void join(String topic, Subscriber s) {
    byTopic.computeIfAbsent(topic, t -> new LinkedHashSet<>()).add(s);
    lingeringSince.remove(topic);
  }

  /**
   * {@code s} no longer listens to {@code topic}; the topic lingers after its last listener left
   * when {@code lingers}.
   */
  void leave(String topic, Subscriber s, boolean lingers) {
    Set<Subscriber> subs = byTopic.get(topic);
    if (subs != null && subs.remove(s) && subs.isEmpty()) {
      byTopic.remove(topic);
      if (lingers) {
        lingeringSince.put(topic, System.nanoTime()); // a reconnect within the linger resumes
      }
    }
  }

  /** Hands each topic that lingered longer than the linger to {@code forget}, and drops it. */
  void expire(Consumer<String> forget) {
    long now = System.nanoTime();
    Iterator<Map.Entry<String, Long>> it = lingeringSince.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Long> e = it.next();
      if (now - e.getValue() > lingerNanos) {
        it.remove();
        forget.accept(e.getKey());
      }
    }
  }

  /** {@code e} to every listener of its topic. */
  void deliver(PushEvent e) {
    Set<Subscriber> subs = byTopic.get(e.topic());
    if (subs != null) {
      for (Subscriber s : subs) {
        s.deliver(e);
      }
    }
  }
}
