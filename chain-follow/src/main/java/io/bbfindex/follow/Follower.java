package io.bbfindex.follow;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.events.ChainEvent;
import io.bbfindex.follow.events.ChainEventSink;
import io.bbfindex.follow.events.Removal;
import io.bbfindex.follow.layer.BlockFileLocator;
import io.bbfindex.follow.layer.BlockPosition;
import io.bbfindex.follow.layer.DecodedBlock;
import io.bbfindex.follow.layer.MempoolLayer;
import io.bbfindex.follow.layer.TipAnswer;
import io.bbfindex.follow.layer.TipBlock;
import io.bbfindex.follow.layer.TipLayer;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.node.NodeUnreachableException;
import io.bbfindex.follow.node.RawMempool;
import io.bbfindex.follow.node.RpcException;
import io.bbfindex.follow.node.SequenceEvent;
import io.bbfindex.follow.node.ZmqSequenceSubscriber;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Follows a running Bitcoin Core from the history snapshot's tip: connects and disconnects blocks
 * in the {@link TipLayer} (reorgs found by hash: a block whose header the node reports off the
 * active chain is disconnected), keeps the {@link MempoolLayer} exact from ZMQ {@code sequence}
 * events with a {@code getrawmempool false true} resync at start and on any counter gap, or polls
 * both every {@code pollInterval} without ZMQ. One daemon thread does all writes; lookups and
 * {@link #status()} are safe from any thread and never call the node.
 */
public final class Follower implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Follower.class.getName());

  /**
   * How long a connected ZMQ subscription is given to reach the publisher before the mempool
   * snapshot.
   */
  private static final Duration SUBSCRIBE_SETTLE = Duration.ofMillis(200);

  /** Side-branch blocks read at (re)contact; a long-running mainnet node knows a few dozen. */
  static final int MAX_FORK_BLOCKS = 1_000;

  private final FollowConfig config;
  private final NodeRpc rpc;
  private final TipLayer tip;
  private final MempoolLayer mempool = new MempoolLayer();
  // getrawmempool answers are parsed into this one buffer (the follower's thread only).
  private final RawMempool rawMempool = new RawMempool();
  private final FollowStats stats;
  private final Optional<BlockFileLocator> locator;
  private final Thread thread;
  private final Object progress = new Object();
  private volatile boolean closed;

  /**
   * Where the changes go ({@link #publishTo}): nowhere until the app listens, and a refreshed
   * follower publishes only once it is swapped in, so that no block is reported twice.
   */
  private volatile ChainEventSink sink = ChainEventSink.NONE;

  private @Nullable ZmqSequenceSubscriber zmq;
  private boolean zmqLookedUp;
  private boolean needContact = true;

  /**
   * The mempool sequence the next A/R event will carry at the earliest; older ones are in the
   * snapshot.
   */
  private long nextMempoolSequence = -1;

  /**
   * Blocks disconnected since the last connect: a reorg's depth, recorded when the new branch
   * starts.
   */
  private int pendingReorgDepth;

  private int mempoolSizeMismatches;

  private volatile @Nullable String network;
  private volatile @Nullable Hash32 nodeTipHash;
  private volatile int nodeTipHeight = -1;
  private volatile @Nullable Instant behindSince;
  private volatile FollowState state = FollowState.CATCHING_UP;
  private volatile Instant stateSince = Instant.now();
  private volatile String notifications = "none yet";

  /** Set once the follower first reached the node's tip: before that, nothing absent is known. */
  private volatile boolean followedOnce;

  /** Why the follower cannot follow now (refused, timeout, 401, ...); null while it follows. */
  private volatile @Nullable String lastError;

  /** Whether listeners were told the node is lost and not yet that it is found (this thread). */
  private boolean reportedStale;

  private Follower(FollowConfig config, Optional<BlockFileLocator> locator, FollowStats stats) {
    this.config = config;
    this.stats = stats;
    this.rpc = config.rpc();
    this.tip = new TipLayer(config.baseHash(), config.baseHeight());
    this.locator = locator;
    this.thread = Thread.ofPlatform().daemon().name("follower").unstarted(this::run);
  }

  /**
   * Starts following on a background thread; returns at once (the node may be down: the follower
   * keeps trying).
   *
   * @throws IOException if the node's {@code xor.dat} exists but cannot be read
   */
  public static Follower start(FollowConfig config) throws IOException {
    return start(config, new FollowStats());
  }

  /**
   * As {@link #start(FollowConfig)}, counting into {@code stats} (shared by the followers that
   * replace one another at each history refresh, so that the counters never go back).
   *
   * @throws IOException if the node's {@code xor.dat} exists but cannot be read
   */
  public static Follower start(FollowConfig config, FollowStats stats) throws IOException {
    Follower f = new Follower(config, BlockFileLocator.open(config.blocksDir()), stats);
    f.thread.start();
    return f;
  }

  // ---------------------------------------------------------------- reads (any thread)

  /** Filter probes only: {@code false} means neither the tip nor the mempool holds the txid. */
  public boolean mightContain(byte[] keys, int offset) {
    return tip.mightContain(keys, offset) || mempool.mightContain(keys, offset);
  }

  /**
   * The exact answer for a txid the filters did not rule out: confirmed after the snapshot, in the
   * mempool, stale (only in a block a reorg disconnected), or empty. Never calls the node.
   */
  public Optional<TipAnswer> lookup(Hash32 txid) {
    Optional<TipAnswer> t = tip.lookup(txid);
    if (t.isPresent() && t.get() instanceof TipAnswer.Confirmed) {
      return t;
    }
    if (mempool.contains(txid)) {
      return Optional.of(new TipAnswer.InMempool());
    }
    return t;
  }

  /**
   * A block connected after the snapshot, or disconnected by a reorg since (a snapshot block
   * included). Never calls the node.
   */
  public Optional<TipBlock> block(Hash32 hash) {
    return tip.block(hash);
  }

  /** Height of the newest block the answers reflect. */
  public int servedTipHeight() {
    return tip.tipHeight();
  }

  /** Hash of the connected block at {@code height} above the snapshot, if any. */
  public Optional<Hash32> servedHashAt(int height) {
    return tip.hashAt(height);
  }

  public FollowStatus status() {
    return new FollowStatus(
        network,
        nodeTipHash,
        nodeTipHeight,
        tip.tipHash(),
        tip.tipHeight(),
        config.baseHash(),
        config.baseHeight(),
        state,
        stateSince,
        mempool.size(),
        notifications,
        lastError);
  }

  public FollowStats stats() {
    return stats;
  }

  /**
   * Reports every change applied from now on to {@code to} ({@link ChainEventSink#NONE}: to
   * nobody), on the follower's thread.
   */
  public void publishTo(ChainEventSink to) {
    sink = Objects.requireNonNull(to, "to");
  }

  /**
   * Whether "absent" can be answered: the follower is at the node's tip, or connecting the one
   * block the node just announced. Not before its first catch-up (a restart behind the node), not
   * while the node cannot be reached (it may hold blocks and transactions the layers lack), not
   * while the mempool is taken again, not while catching up more than a block.
   */
  public boolean settled() {
    FollowState s = state;
    return s == FollowState.FOLLOWING
        || (s == FollowState.CATCHING_UP && followedOnce && lagBlocks() <= 1);
  }

  /** Blocks the served tip trails the node's last known tip by (0 when unknown). */
  public int lagBlocks() {
    return nodeTipHeight < 0 ? 0 : Math.max(0, nodeTipHeight - tip.tipHeight());
  }

  /** Seconds since the node's tip has been ahead of the served tip (0 when level). */
  public double lagSeconds() {
    Instant b = behindSince;
    return b == null ? 0 : Duration.between(b, Instant.now()).toNanos() / 1e9;
  }

  public int mempoolSize() {
    return mempool.size();
  }

  public double tipFilterLoad() {
    return tip.filterLoad();
  }

  public double mempoolFilterLoad() {
    return mempool.filterLoad();
  }

  /**
   * Waits until the follower serves {@code blockHash} as its tip and is {@code FOLLOWING}.
   *
   * @return whether it did within {@code timeout}
   */
  public boolean awaitTip(Hash32 blockHash, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (!(tip.tipHash().equals(blockHash) && state == FollowState.FOLLOWING)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        progress.wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }

  // ---------------------------------------------------------------- the follower thread

  private void run() {
    while (!closed) {
      try {
        if (needContact) {
          contact();
        }
        step();
      } catch (NodeUnreachableException e) {
        String reason = e.getMessage();
        if (state != FollowState.NODE_UNREACHABLE || !reason.equals(lastError)) {
          // once per outage and reason, not every second
          LOG.log(
              Level.WARNING,
              "cannot reach the node at "
                  + rpc.endpoint()
                  + ": "
                  + reason
                  + "; trying again every second");
        }
        lastError = reason;
        enter(FollowState.NODE_UNREACHABLE);
        needContact = true;
        pause(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, "following failed, starting again in 1 s: " + e, e);
        lastError = e.getMessage() != null ? e.getMessage() : e.toString();
        needContact = true;
        pause(Duration.ofSeconds(1));
      }
    }
  }

  /** First contact, and again after every outage or error: network, ZMQ, mempool, tip. */
  private void contact() throws IOException, InterruptedException {
    JsonNode info = rpc.call("getblockchaininfo");
    network = info.path("chain").asText();
    if (!zmqLookedUp) {
      String endpoint = config.zmq() == null ? discoverZmq() : config.zmq();
      zmqLookedUp = true;
      if (endpoint != null && !endpoint.equals(FollowConfig.NO_ZMQ)) {
        zmq = new ZmqSequenceSubscriber(endpoint);
        notifications = "zmq " + endpoint;
        // A SUB joins asynchronously: the mempool snapshot must not predate the subscription.
        if (!zmq.awaitConnected(Duration.ofSeconds(5), SUBSCRIBE_SETTLE)) {
          LOG.log(
              Level.WARNING,
              "ZMQ "
                  + endpoint
                  + " not connected within 5 s; the periodic sync covers blocks until it is");
        }
      } else {
        notifications = "polling every " + config.pollInterval().toMillis() + " ms";
      }
    }
    syncTip();
    learnForks();
    resyncMempool();
    needContact = false;
    enter(FollowState.FOLLOWING);
  }

  /**
   * Takes the blocks of the node's side branches ({@code getchaintips}: forks, invalidated blocks)
   * as stale: a restart, or an outage, must not forget a tx that only a block which lost a reorg
   * holds (Core's txindex keeps it and answers it). Walks at most {@value #MAX_FORK_BLOCKS} blocks;
   * a block whose data the node lacks (headers only, pruned) is passed over.
   */
  private void learnForks() throws IOException {
    int walked = 0;
    for (JsonNode t : rpc.call("getchaintips")) {
      String status = t.path("status").asText();
      if (status.equals("active") || status.equals("headers-only")) {
        continue;
      }
      Hash32 hash = Hash32.ofDisplayHex(t.path("hash").asText());
      int height = t.path("height").asInt();
      for (int i = 0; i < t.path("branchlen").asInt() && walked < MAX_FORK_BLOCKS; i++, walked++) {
        Optional<byte[]> raw = rpc.block(hash);
        Hash32 prev;
        if (raw.isPresent()) {
          DecodedBlock b = DecodedBlock.parse(raw.get());
          tip.addStaleBlock(b, height);
          prev = b.prevHash();
        } else {
          prev =
              Hash32.ofDisplayHex(
                  rpc.call("getblockheader", hash.displayHex(), true)
                      .path("previousblockhash")
                      .asText());
        }
        hash = prev;
        height--;
      }
    }
  }

  /** The {@code pubsequence} endpoint from {@code getzmqnotifications}, or {@code null}. */
  private @Nullable String discoverZmq() throws IOException {
    JsonNode list;
    try {
      list = rpc.call("getzmqnotifications");
    } catch (RpcException e) {
      return null; // a node built without ZMQ
    }
    for (JsonNode n : list) {
      if ("pubsequence".equals(n.path("type").asText())) {
        return reachable(n.path("address").asText());
      }
    }
    return null;
  }

  /** A wildcard bind address is reached at the RPC's host. */
  private String reachable(String address) {
    URI u = URI.create(address);
    String host = u.getHost();
    if (host == null || host.equals("0.0.0.0") || host.equals("*")) {
      return "tcp://" + rpc.endpoint().getHost() + ":" + u.getPort();
    }
    return address;
  }

  private void step() throws IOException, InterruptedException {
    if (zmq == null) {
      syncTip();
      pollMempool();
      enter(FollowState.FOLLOWING);
      Thread.sleep(config.pollInterval());
      return;
    }
    ZmqSequenceSubscriber.Received r = zmq.poll(config.pollInterval().toMillis());
    if (r == null) {
      syncTip(); // health check: also notices a dead node, which ZMQ alone never reports
      checkMempoolSize();
      enter(FollowState.FOLLOWING);
      return;
    }
    do {
      apply(r);
    } while ((r = zmq.poll(0)) != null);
    enter(FollowState.FOLLOWING);
  }

  private void apply(ZmqSequenceSubscriber.Received r) throws IOException {
    if (r.gapBefore()) {
      stats.zmqGaps.incrementAndGet();
      LOG.log(
          Level.INFO,
          "ZMQ sequence gap before counter " + r.event().counter() + ": mempool resync");
      resyncMempool();
    }
    SequenceEvent e = r.event();
    switch (e.kind()) {
      case BLOCK_CONNECTED, BLOCK_DISCONNECTED -> syncTip();
      case TX_ADDED -> {
        if (e.mempoolSequence() >= nextMempoolSequence) {
          nextMempoolSequence = e.mempoolSequence() + 1;
          // A tx our tip holds confirmed: either an A queued before a block we already connected
          // (the tip sync can run ahead of the stream), or a tx a reorg gave back to the mempool
          // before its D reached us. Only the node can tell; it is the rare case.
          if (!tip.isConfirmed(e.hash()) || inNodeMempool(e.hash())) {
            mempool.add(e.hash());
            sink.publish(new ChainEvent.TxEntered(e.hash()));
          }
        }
      }
      case TX_REMOVED -> {
        if (e.mempoolSequence() >= nextMempoolSequence) {
          nextMempoolSequence = e.mempoolSequence() + 1;
          mempool.remove(e.hash());
          sink.publish(new ChainEvent.TxLeft(e.hash(), new Removal.Unresolved()));
        }
      }
    }
    signalProgress();
  }

  /**
   * On a quiet tick, the node's mempool size against ours: a difference on two quiet ticks in a row
   * means events were lost without a counter gap (a subscription that reached the publisher only
   * after the snapshot, or lost messages before the first one we saw): resync.
   */
  private void checkMempoolSize() throws IOException {
    int nodeSize = rpc.call("getmempoolinfo").path("size").asInt();
    if (nodeSize == mempool.size()) {
      mempoolSizeMismatches = 0;
    } else if (++mempoolSizeMismatches >= 2) {
      LOG.log(
          Level.INFO,
          "mempool size " + mempool.size() + " differs from the node's " + nodeSize + ": resync");
      mempoolSizeMismatches = 0;
      resyncMempool();
    }
  }

  private boolean inNodeMempool(Hash32 txid) throws IOException {
    try {
      rpc.call("getmempoolentry", txid.displayHex());
      return true;
    } catch (RpcException e) {
      if (e.code() == RpcException.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  /** Brings the tip layer to the node's active tip, disconnecting what left it. */
  private void syncTip() throws IOException {
    for (int attempt = 0; ; attempt++) {
      Hash32 best = Hash32.ofDisplayHex(rpc.call("getbestblockhash").asText());
      if (best.equals(tip.tipHash())) {
        nodeTipHash = best;
        nodeTipHeight = tip.tipHeight();
        behindSince = null;
        return;
      }
      int bestHeight = rpc.call("getblockheader", best.displayHex(), true).path("height").asInt();
      nodeTipHash = best;
      nodeTipHeight = bestHeight;
      if (behindSince == null) {
        behindSince = Instant.now();
      }
      enter(FollowState.CATCHING_UP);
      disconnectStale();
      connectUpTo(bestHeight);
      if (attempt > 1000) {
        throw new IOException("the node's chain kept changing while following it");
      }
    }
  }

  private void disconnectStale() throws IOException {
    int depth = 0;
    while (tip.depth() > 0 && !onActiveChain(tip.tipHash())) {
      int goneHeight = tip.tipHeight();
      DecodedBlock gone = tip.disconnectTip();
      publishDisconnected(gone, goneHeight);
      stats.blocksDisconnected.incrementAndGet();
      depth++;
      LOG.log(Level.DEBUG, "disconnected " + gone.hash());
    }
    // Deeper still: the snapshot's own blocks left the active chain. The node keeps stale blocks,
    // so their txids are taken from it and answered stale from here on.
    while (tip.depth() == 0 && tip.baseHeight() > 0 && !onActiveChain(tip.baseHash())) {
      Hash32 base = tip.baseHash();
      byte[] raw =
          rpc.block(base)
              .orElseThrow(
                  () ->
                      new IOException(
                          "the snapshot's block "
                              + base
                              + " left the active chain and the node no longer has it (pruned?)"));
      DecodedBlock gone = DecodedBlock.parse(raw);
      int goneHeight = tip.baseHeight();
      tip.disconnectBase(gone);
      publishDisconnected(gone, goneHeight);
      stats.blocksDisconnected.incrementAndGet();
      depth++;
      LOG.log(Level.INFO, "reorg into the snapshot's blocks: " + base + " disconnected");
    }
    if (depth > 0) {
      // The node may disconnect a deep reorg block by block (invalidateblock does): sum until a
      // connect.
      pendingReorgDepth += depth;
      LOG.log(
          Level.INFO, "reorg: " + depth + " block(s) disconnected, tip back at " + tip.tipHash());
      signalProgress();
    }
  }

  private void publishDisconnected(DecodedBlock gone, int height) {
    sink.publish(
        new ChainEvent.BlockDisconnected(gone.hash(), height, Arrays.asList(gone.txids())));
  }

  private boolean onActiveChain(Hash32 block) throws IOException {
    try {
      return rpc.call("getblockheader", block.displayHex(), true).path("confirmations").asInt(-1)
          >= 0;
    } catch (RpcException e) {
      if (e.code() == RpcException.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Connects heights tip+1 .. {@code height}; stops early when a block does not build on the tip (a
   * reorg raced).
   */
  private void connectUpTo(int height) throws IOException {
    while (tip.tipHeight() < height) {
      int next = tip.tipHeight() + 1;
      Hash32 hash;
      try {
        hash = Hash32.ofDisplayHex(rpc.call("getblockhash", next).asText());
      } catch (RpcException e) {
        return; // the chain got shorter meanwhile: the caller looks again
      }
      Optional<byte[]> raw = rpc.block(hash);
      if (raw.isEmpty()) {
        return;
      }
      DecodedBlock block = DecodedBlock.parse(raw.get());
      if (!block.prevHash().equals(tip.tipHash())) {
        return;
      }
      BlockPosition where = locator.flatMap(l -> l.find(hash)).orElse(null);
      tip.connect(block, where);
      sink.publish(new ChainEvent.BlockConnected(hash, next, Arrays.asList(block.txids())));
      if (pendingReorgDepth > 0) {
        stats.recordReorg(pendingReorgDepth);
        pendingReorgDepth = 0;
      }
      mempool.removeAll(block.txids());
      stats.blocksConnected.incrementAndGet();
      signalProgress();
    }
  }

  /**
   * Takes the whole mempool again ({@code getrawmempool false true}). The node's answer is taken as
   * it is: a txid our tip still holds confirmed (a reorg the tip sync has not seen yet) is answered
   * confirmed until the sync, then mempool; a block connected after the snapshot removes its txids.
   */
  private void resyncMempool() throws IOException {
    enter(FollowState.RESYNCING_MEMPOOL);
    applyMempool(rpc.rawMempool(rawMempool));
    stats.mempoolResyncs.incrementAndGet();
  }

  /** Without ZMQ: a new mempool snapshot whenever the node's mempool sequence moved. */
  private void pollMempool() throws IOException {
    RawMempool m = rpc.rawMempool(rawMempool);
    if (m.sequence() != nextMempoolSequence) {
      applyMempool(m);
    }
  }

  private void applyMempool(RawMempool m) {
    mempool.replaceAll(m.txids(), m.count());
    nextMempoolSequence = m.sequence();
    sink.publish(new ChainEvent.MempoolResynced());
    signalProgress();
  }

  private void enter(FollowState s) {
    if (state != s) {
      if (s == FollowState.FOLLOWING) {
        if (lastError != null) {
          LOG.log(Level.INFO, "following the node at " + rpc.endpoint() + " again");
        }
        lastError = null;
        followedOnce = true;
      }
      state = s;
      stateSince = Instant.now();
      reportHealth(s);
      signalProgress();
    }
  }

  /**
   * Tells listeners when answers may be old (the node is unreachable) and when they are current
   * again (following, after the catch-up's own events): once per outage, not per retry.
   */
  private void reportHealth(FollowState s) {
    if (s == FollowState.NODE_UNREACHABLE && !reportedStale) {
      reportedStale = true;
      sink.publish(new ChainEvent.FollowHealth(true, lastError));
    } else if (s == FollowState.FOLLOWING && reportedStale) {
      reportedStale = false;
      sink.publish(new ChainEvent.FollowHealth(false, null));
    }
  }

  private void signalProgress() {
    synchronized (progress) {
      progress.notifyAll();
    }
  }

  private void pause(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      closed = true;
    }
  }

  /**
   * Stops the follower thread and closes the ZMQ subscription and the block files.
   *
   * @throws IOException if a block file cannot be closed
   */
  @Override
  public void close() throws IOException {
    closed = true;
    thread.interrupt();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (zmq != null) {
      zmq.close();
    }
    if (locator.isPresent()) {
      locator.get().close();
    }
  }
}
