package io.bbfindex.app.push;

import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.events.ChainEvent;
import io.bbfindex.follow.events.ChainListener;
import io.bbfindex.follow.events.FollowEvents;
import io.bbfindex.follow.events.Removal;
import io.bbfindex.ingest.encoding.Hash32;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Turns the follower's changes into events for the txids and blocks clients subscribed to, keeps
 * the recent ones for reconnects, and hands each to its subscribers. One lock orders everything: an
 * event is numbered, kept and delivered under it, and a subscription takes its first events and
 * joins under it, so that a client sees every event once, in order, with nothing between its first
 * state and its first change lost.
 *
 * <p>A tx event is only sent when the tx's state changes (a history refresh can report a change
 * twice); after a mempool resync, which reports no single change, each subscribed txid's state is
 * looked up again.
 *
 * <p>When the follower loses its node, every followed txid gets a {@code stale} event (with {@code
 * follow}: its answers may be old, the tx may have moved meanwhile); when it follows again, each
 * txid whose state the catch-up did not already report gets its current state (with {@code follow}
 * too, so that the WebSocket dialect, which has no word for this, can pass both over).
 */
public final class PushHub implements ChainListener {
  /** The topic of connected and disconnected blocks. */
  public static final String BLOCKS = "blocks";

  /** Recent events kept for {@code Last-Event-ID}: minutes of a busy mempool's tracked txs. */
  public static final int RING_CAPACITY = 16_384;

  /** How long a txid's changes are still recorded after its last subscriber left. */
  static final Duration LINGER = Duration.ofMinutes(5);

  private static final String STALE = "stale";

  private final CurrentState current;
  private final FollowEvents events;
  private final PushMetrics metrics;
  private final EventRing ring;
  private final Topics topics = new Topics(LINGER);

  /**
   * The last kind sent for each followed txid: those subscribed to, and for {@link #LINGER} after
   * their last subscriber left, so that their changes are still recorded for a reconnect.
   */
  private final Map<String, String> lastKind = new HashMap<>();

  /** Txids whose inputs {@link FollowEvents} keeps (to name a replacement). */
  private final Set<String> watched = new HashSet<>();

  /** Txids told the follower is stale and told nothing since: their state is sent on recovery. */
  private final Set<String> toldStale = new HashSet<>();

  /** Why the follower lost its node, while it has; null while it follows. */
  private @Nullable String staleReason;

  /**
   * Listens to {@code events}; answers current states from {@code backend}. Event ids start at the
   * wall clock in microseconds, so that an id from before a restart is older than any the ring
   * holds after it, and such a client gets the current state rather than a wrong resume.
   */
  public PushHub(ChainBackend backend, FollowEvents events, PushMetrics metrics) {
    this.current = new CurrentState(backend);
    this.events = events;
    this.metrics = metrics;
    this.ring = new EventRing(RING_CAPACITY, System.currentTimeMillis() * 1_000);
    events.addListener(this);
  }

  public PushMetrics metrics() {
    return metrics;
  }

  /**
   * Subscribes to {@code txid}: delivers the events after {@code lastEventId} if the ring still
   * holds them all, else (or without one) the current state; then every change.
   */
  public synchronized void subscribeTx(Hash32 txid, Subscriber s, OptionalLong lastEventId) {
    String topic = txid.displayHex();
    expireLingering();
    // Only a topic followed without a break since that id can be resumed: else its changes in
    // between were never recorded.
    Optional<List<PushEvent>> missed =
        lastKind.containsKey(topic) && lastEventId.isPresent()
            ? ring.since(topic, lastEventId.getAsLong())
            : Optional.empty();
    if (missed.isPresent()) {
      missed.get().forEach(s::deliver);
    } else {
      CurrentState.Snapshot now = current.of(txid);
      s.deliver(new PushEvent(ring.lastId(), topic, now.kind(), now.data(), 0));
      lastKind.putIfAbsent(topic, now.kind());
      if (staleReason != null) { // the state above is what was known when the node was lost
        s.deliver(new PushEvent(ring.lastId(), topic, STALE, staleData(topic, staleReason), 0));
        lastKind.put(topic, STALE);
        toldStale.add(topic);
      }
    }
    topics.join(topic, s);
    if (watched.add(topic)) {
      events.watch(txid);
    }
  }

  /** Subscribes to connected and disconnected blocks, after {@code lastEventId} when given. */
  public synchronized void subscribeBlocks(Subscriber s, OptionalLong lastEventId) {
    if (lastEventId.isPresent()) {
      ring.since(BLOCKS, lastEventId.getAsLong()).orElse(List.of()).forEach(s::deliver);
    }
    topics.join(BLOCKS, s);
  }

  public synchronized void unsubscribe(String topic, Subscriber s) {
    topics.leave(topic, s, !topic.equals(BLOCKS));
  }

  /** Forgets the txids nobody subscribed to again within {@link #LINGER}. */
  private void expireLingering() {
    topics.expire(
        topic -> {
          lastKind.remove(topic);
          toldStale.remove(topic);
          watched.remove(topic);
          events.unwatch(Hash32.ofDisplayHex(topic));
        });
  }

  @Override
  public synchronized void onEvent(ChainEvent event, long observedNanos) {
    expireLingering();
    switch (event) {
      case ChainEvent.TxEntered e -> txChange(e.txid(), "mempool", Map.of(), observedNanos);
      case ChainEvent.TxLeft e -> {
        if (e.removal() instanceof Removal.Replaced r) {
          txChange(e.txid(), "replaced", Map.of("by", r.by().displayHex()), observedNanos);
        } else {
          txChange(e.txid(), "removed", Map.of("reason", e.removal().reason()), observedNanos);
        }
      }
      case ChainEvent.BlockConnected b -> {
        publish(BLOCKS, "connected", block(b.hash(), b.height()), observedNanos);
        for (Hash32 txid : b.txids()) {
          if (lastKind.containsKey(txid.displayHex())) {
            Map<String, Object> data = block(b.hash(), b.height());
            data.put("confirmations", 1); // as of the event: its block is the tip
            txChange(txid, "confirmed", data, observedNanos);
          }
        }
      }
      case ChainEvent.BlockDisconnected b -> {
        publish(BLOCKS, "disconnected", block(b.hash(), b.height()), observedNanos);
        for (Hash32 txid : b.txids()) {
          if (lastKind.containsKey(txid.displayHex())) {
            txChange(txid, "unconfirmed", block(b.hash(), b.height()), observedNanos);
          }
        }
      }
      case ChainEvent.FollowHealth h -> {
        if (h.stale()) {
          followerStale(h.reason() == null ? "unknown" : h.reason(), observedNanos);
        } else {
          followerRecovered(observedNanos);
        }
      }
      case ChainEvent.MempoolResynced r -> {
        for (String topic : List.copyOf(lastKind.keySet())) {
          if (toldStale.contains(topic)) {
            continue; // its state is sent when the follower reports it follows again
          }
          CurrentState.Snapshot now = current.of(Hash32.ofDisplayHex(topic));
          if (!now.kind().equals(lastKind.get(topic))) {
            publishTx(topic, now.kind(), now.data(), observedNanos);
          }
        }
      }
    }
  }

  /** Every followed txid: {@code stale}, its answers may be old. */
  private void followerStale(String reason, long nanos) {
    staleReason = reason;
    for (String topic : List.copyOf(lastKind.keySet())) {
      publishTx(topic, STALE, staleData(topic, reason), nanos);
      toldStale.add(topic);
    }
  }

  /** The current state of each followed txid whose change the catch-up did not report. */
  private void followerRecovered(long nanos) {
    staleReason = null;
    for (String topic : List.copyOf(toldStale)) {
      if (lastKind.containsKey(topic)) {
        CurrentState.Snapshot now = current.of(Hash32.ofDisplayHex(topic));
        Map<String, Object> data = new LinkedHashMap<>(now.data());
        data.put(PushEvent.FOLLOW, FollowState.FOLLOWING.text());
        publishTx(topic, now.kind(), data, nanos);
      }
    }
    toldStale.clear();
  }

  private static Map<String, Object> staleData(String topic, String reason) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("txid", topic);
    data.put(PushEvent.FOLLOW, FollowState.NODE_UNREACHABLE.text());
    data.put("reason", reason);
    return data;
  }

  private static Map<String, Object> block(Hash32 hash, int height) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("blockHash", hash.displayHex());
    data.put("height", height);
    return data;
  }

  /** A tx's change, sent only if it changes what its subscribers last heard. */
  private void txChange(Hash32 txid, String kind, Map<String, Object> fields, long nanos) {
    String topic = txid.displayHex();
    if (!lastKind.containsKey(topic)) {
      return;
    }
    String before = lastKind.get(topic);
    // a second "confirmed" is a different block (a reorg to another one), so it is news
    if (kind.equals(before) && !kind.equals("confirmed")) {
      return;
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("txid", topic);
    data.putAll(fields);
    publishTx(topic, kind, data, nanos);
  }

  private void publishTx(String topic, String kind, Map<String, Object> data, long nanos) {
    lastKind.put(topic, kind);
    toldStale.remove(topic);
    publish(topic, kind, data, nanos);
  }

  private void publish(String topic, String kind, Map<String, Object> data, long nanos) {
    PushEvent e = new PushEvent(ring.nextId(), topic, kind, data, nanos);
    ring.append(e);
    topics.deliver(e);
  }
}
