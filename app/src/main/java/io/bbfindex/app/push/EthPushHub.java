package io.bbfindex.app.push;

import io.bbfindex.eth.EthAnswer;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.EthTxLocation;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The Ethereum counterpart of {@link PushHub}: events for the transaction hashes clients subscribed
 * to ({@code pending}, {@code confirmed}, {@code reorged}, {@code unknown}), kept in an {@link
 * EventRing} of their own for {@code Last-Event-ID}.
 *
 * <p>WHY by comparing states after each poll rather than from block events: the index follows the
 * node by polling ({@link EthIndex#addPollListener}), and a subscribed hash's answer before and
 * after a poll says everything a client needs, reorgs included (a confirmed answer whose block hash
 * changed or vanished). A lookup is in process and costs well under a microsecond, so even 10,000
 * subscriptions cost a few milliseconds a poll. One lock orders subscribing and comparing, so a
 * client gets every change once, in order, after its first state.
 */
public final class EthPushHub {
  private static final HexFormat HEX = HexFormat.of();

  private final EthIndex index;
  private final PushMetrics metrics;
  private final EventRing ring;
  private final Topics topics = new Topics(PushHub.LINGER);

  /**
   * The state last sent for each followed hash: those subscribed to, and for {@link PushHub#LINGER}
   * after their last subscriber left, so a reconnect can resume.
   */
  private final Map<String, Followed> followed = new HashMap<>();

  /** A followed hash: its 32 bytes and what its subscribers last heard. */
  private static final class Followed {
    final byte[] key;
    State state;

    Followed(byte[] key, State state) {
      this.key = key;
      this.state = state;
    }
  }

  /**
   * What the index answers for a hash: {@code pending}, {@code confirmed} (with its location) or
   * {@code unknown}.
   */
  record State(String kind, @Nullable EthTxLocation at, long confirmations) {
    static State of(Optional<EthAnswer> answer) {
      if (answer.isEmpty()) {
        return new State("unknown", null, 0);
      }
      EthAnswer a = answer.get();
      return a.status() == EthAnswer.Status.CONFIRMED
          ? new State("confirmed", a.location(), a.confirmations())
          : new State("pending", null, 0);
    }

    /** Whether both say confirmed in the same block. */
    boolean sameBlock(State other) {
      EthTxLocation mine = at;
      EthTxLocation theirs = other.at;
      return mine != null && theirs != null && mine.blockHash().equals(theirs.blockHash());
    }
  }

  /** Listens to {@code index}'s polls; event ids start at the wall clock in microseconds. */
  public EthPushHub(EthIndex index, PushMetrics metrics) {
    this.index = index;
    this.metrics = metrics;
    this.ring = new EventRing(PushHub.RING_CAPACITY, System.currentTimeMillis() * 1_000);
    index.addPollListener(this::polled);
  }

  public PushMetrics metrics() {
    return metrics;
  }

  /** The topic of a hash: {@code 0x} and 64 lower-case hex digits. */
  public static String topic(byte[] key) {
    return "0x" + HEX.formatHex(key);
  }

  /**
   * Subscribes to the hash {@code key} (32 bytes): delivers the events after {@code lastEventId} if
   * the ring still holds them all, else (or without one) the current state; then every change.
   *
   * @throws EthIndex.CatchingUpException when the current state cannot be told (the index is
   *     catching up, or the node is on another chain): nothing is delivered
   */
  public synchronized void subscribe(byte[] key, Subscriber s, OptionalLong lastEventId)
      throws EthIndex.CatchingUpException {
    String topic = topic(key);
    expireLingering();
    Followed f = followed.get(topic);
    Optional<List<PushEvent>> missed =
        f != null && lastEventId.isPresent()
            ? ring.since(topic, lastEventId.getAsLong())
            : Optional.empty();
    if (missed.isPresent()) {
      missed.get().forEach(s::deliver);
    } else {
      State now = State.of(index.lookup(key, 0));
      s.deliver(new PushEvent(ring.lastId(), topic, now.kind(), data(topic, now), 0));
      if (f == null) {
        followed.put(topic, new Followed(key.clone(), now));
      }
    }
    topics.join(topic, s);
  }

  public synchronized void unsubscribe(String topic, Subscriber s) {
    topics.leave(topic, s, true);
  }

  /** Forgets the hashes nobody subscribed to again within {@link PushHub#LINGER}. */
  private void expireLingering() {
    topics.expire(followed::remove);
  }

  /** After a poll: each followed hash's answer against what its subscribers last heard. */
  private synchronized void polled() {
    expireLingering();
    long observed = System.nanoTime();
    for (Map.Entry<String, Followed> e : followed.entrySet()) {
      Followed f = e.getValue();
      State now;
      try {
        now = State.of(index.lookup(f.key, 0));
      } catch (EthIndex.CatchingUpException unknowable) {
        continue; // no answer to stand behind this poll: the last one stays, as does the state
      }
      changed(e.getKey(), f, now, observed);
    }
  }

  /**
   * The events that take a subscriber from {@code f.state} to {@code now}: {@code reorged} when the
   * block it was told of no longer holds the transaction, then the new state unless it is one that
   * says nothing new ({@code unknown} right after a reorg: the node dropped it).
   */
  private void changed(String topic, Followed f, State now, long observed) {
    State before = f.state;
    f.state = now;
    EthTxLocation was = before.at();
    if (was != null && !before.sameBlock(now)) {
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("hash", topic);
      data.put("blockNumber", was.blockNumber());
      data.put("blockHash", was.blockHash().hex());
      publish(topic, "reorged", data, observed);
      if (now.kind().equals("unknown")) {
        return;
      }
    } else if (before.kind().equals(now.kind())) {
      return; // same state (a confirmed one in the same block: only the confirmations grew)
    }
    publish(topic, now.kind(), data(topic, now), observed);
  }

  private static Map<String, Object> data(String topic, State s) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("hash", topic);
    EthTxLocation at = s.at();
    if (at != null) {
      data.put("blockNumber", at.blockNumber());
      data.put("blockHash", at.blockHash().hex());
      data.put("transactionIndex", at.transactionIndex());
      data.put("confirmations", s.confirmations());
    }
    return data;
  }

  private void publish(String topic, String kind, Map<String, Object> data, long nanos) {
    PushEvent e = new PushEvent(ring.nextId(), topic, kind, data, nanos);
    ring.append(e);
    topics.deliver(e);
  }
}
