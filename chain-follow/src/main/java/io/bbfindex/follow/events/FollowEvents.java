package io.bbfindex.follow.events;

import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The follower's events, handed from its thread to listeners on a thread of their own ({@code
 * follow-events}), so that nothing a listener does (nor the node calls that tell why a watched tx
 * left the mempool) slows the follower: its only cost is one queue insert per change.
 *
 * <p>Watched txids ({@link #watch}) get their inputs kept while they are in the mempool, so that
 * when one leaves, the node is asked which tx now spends them: {@link Removal.Replaced} names the
 * replacement exactly. Watches are applied on the same thread as the events, in order with them,
 * but the node call that reads a watched tx's inputs runs on a thread of its own ({@code
 * follow-watch}), and only a watched tx's leaving waits for its own: 10,000 subscriptions made just
 * before a block must not hold the block's events back behind 10,000 node calls ({@code bench push}
 * measured 20 s when they did).
 */
public final class FollowEvents implements ChainEventSink, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(FollowEvents.class.getName());

  /**
   * Queued changes beyond which the follower waits: only a stuck listener gets there (a block of
   * 4,000 txs is one entry), and waiting loses nothing where dropping would.
   */
  static final int QUEUE_CAPACITY = 1 << 16;

  /** A queued event with the time the follower published it, or a watch change. */
  private sealed interface Item {}

  private record Published(ChainEvent event, long nanos) implements Item {}

  private record WatchChange(Hash32 txid, boolean watch) implements Item {}

  private record Stop() implements Item {}

  private final BlockingQueue<Item> queue = new LinkedBlockingQueue<>(QUEUE_CAPACITY);
  private final List<ChainListener> listeners = new CopyOnWriteArrayList<>();
  private final RemovalResolver resolver;

  /**
   * Watched txids and their inputs, as read by {@link #reader} (empty when the node did not show
   * the tx in its mempool). Only the events thread touches the map.
   */
  private final Map<Hash32, CompletableFuture<List<Outpoint>>> watched = new HashMap<>();

  /** Reads watched txs' inputs from the node, in the order they were asked for. */
  private final ExecutorService reader =
      Executors.newSingleThreadExecutor(
          Thread.ofPlatform().daemon().name("follow-watch").factory());

  private final Thread thread;

  private FollowEvents(NodeRpc rpc) {
    this.resolver = new RemovalResolver(rpc);
    this.thread = Thread.ofPlatform().daemon().name("follow-events").unstarted(this::run);
  }

  /** Starts the events thread; {@code rpc} resolves why watched txs leave the mempool. */
  public static FollowEvents start(NodeRpc rpc) {
    FollowEvents events = new FollowEvents(rpc);
    events.thread.start();
    return events;
  }

  public void addListener(ChainListener listener) {
    listeners.add(listener);
  }

  /** Keeps the inputs of {@code txid} while it is in the mempool, from now on. */
  public void watch(Hash32 txid) {
    enqueue(new WatchChange(txid, true));
  }

  public void unwatch(Hash32 txid) {
    enqueue(new WatchChange(txid, false));
  }

  @Override
  public void publish(ChainEvent event) {
    enqueue(new Published(event, System.nanoTime()));
  }

  private void enqueue(Item item) {
    try {
      queue.put(item);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    while (true) {
      Item item;
      try {
        item = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        switch (item) {
          case Stop s -> {
            return;
          }
          case WatchChange w -> applyWatch(w);
          case Published p -> deliver(resolved(p.event()), p.nanos());
        }
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "a follow event listener failed: " + e, e);
      }
    }
  }

  private void applyWatch(WatchChange w) {
    if (!w.watch()) {
      watched.remove(w.txid());
      return;
    }
    watched.put(w.txid(), readInputs(w.txid()));
  }

  private CompletableFuture<List<Outpoint>> readInputs(Hash32 txid) {
    try {
      return CompletableFuture.supplyAsync(() -> inputs(txid), reader);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.completedFuture(List.of()); // closing
    }
  }

  /** The inputs of a mempool tx, or empty when the node does not hold it (or cannot be asked). */
  private List<Outpoint> inputs(Hash32 txid) {
    try {
      return resolver.inputsOf(txid).orElse(List.of());
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "cannot read the inputs of " + txid + ": " + e);
      return List.of();
    }
  }

  /** The event with its removal's reason worked out when the tx is watched. */
  private ChainEvent resolved(ChainEvent event) {
    switch (event) {
      case ChainEvent.TxEntered e when watched.containsKey(e.txid()) -> {
        // Read again only if the read made at watch() found nothing (the tx was watched before it
        // entered): a tx watched just after it entered has its inputs from that read, and a
        // second read could come after a replacement took the tx away (Unresolved instead of
        // Replaced: seen once in CI, FollowEventsTest).
        CompletableFuture<List<Outpoint>> known = watched.get(e.txid());
        watched.put(
            e.txid(),
            known == null
                ? readInputs(e.txid())
                : known.thenCompose(
                    in ->
                        in.isEmpty()
                            ? readInputs(e.txid())
                            : CompletableFuture.completedFuture(in)));
      }
      case ChainEvent.TxLeft left when watched.containsKey(left.txid()) -> {
        CompletableFuture<List<Outpoint>> read =
            watched.put(left.txid(), CompletableFuture.completedFuture(List.of()));
        // inputs() never throws; the bound only matters when closing drops a queued read
        List<Outpoint> inputs =
            read == null
                ? List.of()
                : read.completeOnTimeout(List.of(), 60, TimeUnit.SECONDS).join();
        try {
          return new ChainEvent.TxLeft(left.txid(), resolver.resolve(left.txid(), inputs));
        } catch (IOException e) {
          LOG.log(Level.DEBUG, "cannot tell why " + left.txid() + " left the mempool: " + e);
        }
      }
      default -> {}
    }
    return event;
  }

  private void deliver(ChainEvent event, long nanos) {
    for (ChainListener l : listeners) {
      l.onEvent(event, nanos);
    }
  }

  /** Stops the events thread; events still queued are dropped. */
  @Override
  public void close() {
    reader.shutdownNow();
    queue.clear();
    enqueue(new Stop());
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
