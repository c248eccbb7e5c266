package io.bbfindex.app.follow;

import io.bbfindex.app.lookup.BackendUnavailableException;
import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.BlockData;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.workdir.SnapshotDirectories;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.FollowStats;
import io.bbfindex.follow.FollowStatus;
import io.bbfindex.follow.Follower;
import io.bbfindex.follow.events.ChainEventSink;
import io.bbfindex.follow.events.FollowEvents;
import io.bbfindex.follow.layer.TipAnswer;
import io.bbfindex.follow.layer.TipBlock;
import io.bbfindex.ingest.encoding.Hash32;
import io.bbfindex.ingest.records.IndexReadException;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * {@code serve --follow}: the history backend (the snapshot's BBFs and Core's indexes) with the
 * follower's tip and mempool layers in front. A txid is probed in all three filters; only a "maybe"
 * reaches the follower's exact maps (first: they are newer) and then the history's index. A
 * negative touches no store and calls nothing on the node. History answers get their confirmations
 * from the served tip, which is the node's.
 */
public final class FollowingBackend implements ChainBackend, MeterBinder {
  private static final System.Logger LOG = System.getLogger(FollowingBackend.class.getName());

  /**
   * A history snapshot and the follower built on its tip: each covers every tx up to the node's tip
   * together, and a refresh replaces both at once.
   */
  record Layers(ChainBackend history, Follower follower) {
    Layers {
      Objects.requireNonNull(history, "history");
      Objects.requireNonNull(follower, "follower");
    }
  }

  // Read once per call: a lookup never mixes an old history with a new follower (refresh).
  private volatile Layers layers;
  private volatile @Nullable HistoryRefresh refresh;
  private volatile SnapshotDirectories.@Nullable Claim workDir;

  /** LevelDB reads of replaced histories, so that the counter never goes back. */
  private volatile long retiredReads;

  /** What the current follower applies, for push (the follower swapped in by a refresh too). */
  private final FollowEvents events;

  /**
   * Takes ownership of all three: {@link #close()} stops the follower, then closes the history and
   * the events' thread. The follower publishes to {@code events} from now on.
   */
  public FollowingBackend(ChainBackend history, Follower follower, FollowEvents events) {
    this.layers = new Layers(history, follower);
    this.events = Objects.requireNonNull(events, "events");
    follower.publishTo(events);
  }

  /** The hash of the active chain's block at {@code height}: followed, or in the history. */
  public Optional<Hash32> activeHashAt(int height) {
    Layers l = layers;
    Optional<Hash32> followed = l.follower().servedHashAt(height);
    if (followed.isPresent()) {
      return followed;
    }
    return l.history()
        .blockData()
        .flatMap(d -> d.activeBlockAt(height))
        .filter(b -> height <= l.follower().status().snapshotTipHeight())
        .map(b -> Hash32.ofInternal(b.hash()));
  }

  /** The changes the followed node's chain and mempool go through, as the follower applies them. */
  public FollowEvents events() {
    return events;
  }

  /** The current follower (a refresh replaces it). */
  public Follower follower() {
    return layers.follower();
  }

  Layers layers() {
    return layers;
  }

  /**
   * Swaps in a new history and its follower in one step; the caller closes the returned old layers
   * once lookups that already read them are done.
   */
  synchronized Layers swap(Layers fresh) {
    Layers old = layers;
    retiredReads += old.history().leveldbReads();
    // Both serve the same tip here: the new one publishes first, so a change either applies in
    // the gap is reported twice rather than never (push listeners report state changes only).
    fresh.follower().publishTo(events);
    old.follower().publishTo(ChainEventSink.NONE);
    layers = fresh;
    return old;
  }

  /** Closed with the backend, before the layers (the refresh thread). */
  void ownRefresh(HistoryRefresh r) {
    this.refresh = r;
  }

  /** The directory the snapshots live in, deleted by {@link #close()} after the layers. */
  void ownWorkDir(SnapshotDirectories.Claim claim) {
    this.workDir = claim;
  }

  /** The refresh, or {@code null} when off. */
  @Nullable HistoryRefresh refresh() {
    return refresh;
  }

  /**
   * A filter "no" is an answer only while the follower is settled ({@link Follower#settled}); else
   * every txid goes on to {@link #lookupTx}, which refuses to call one absent.
   */
  @Override
  public boolean txMaybe(byte[] keys, int offset) {
    Layers l = layers;
    return l.history().txMaybe(keys, offset)
        || l.follower().mightContain(keys, offset)
        || !l.follower().settled();
  }

  @Override
  public int txMaybeBatch(byte[] keys, int count, long[] maybe) {
    Layers l = layers;
    Follower follower = l.follower();
    if (!follower.settled()) {
      for (int i = 0; i < count; i++) {
        maybe[i >>> 6] |= 1L << (i & 63);
      }
      return count;
    }
    int hits = l.history().txMaybeBatch(keys, count, maybe);
    for (int i = 0; i < count; i++) {
      long bit = 1L << (i & 63);
      if ((maybe[i >>> 6] & bit) == 0 && follower.mightContain(keys, i * Hash32.BYTES)) {
        maybe[i >>> 6] |= bit;
        hits++;
      }
    }
    return hits;
  }

  @Override
  public Optional<TxAnswer> lookupTx(byte[] txid) {
    Layers l = layers;
    Optional<TipAnswer> recent = l.follower().lookup(Hash32.ofInternal(txid));
    if (recent.isPresent() && !(recent.get() instanceof TipAnswer.Stale)) {
      return recent.map(FollowingBackend::answer);
    }
    Optional<TxAnswer> old;
    try {
      old = l.history().lookupTx(txid).map(a -> onServedTip(a, l.follower()));
    } catch (IndexReadException e) {
      // The snapshot's txindex runs ahead of its block index (Core writes the txindex about every
      // 30 s, the block index hourly): a row pointing past the snapshot's blocks belongs to the
      // tip,
      // which the follower answers (or will, once caught up).
      LOG.log(Level.DEBUG, "history lookup past the snapshot's blocks: " + e.getMessage());
      old = Optional.empty();
    }
    if (old.isPresent()
        && recent.isPresent()
        && recent.get() instanceof TipAnswer.Stale s
        && Arrays.equals(s.blockHash().internal(), old.get().blockHash())) {
      return recent.map(FollowingBackend::answer); // a snapshot block a reorg disconnected since
    }
    Optional<TxAnswer> found = old.isPresent() ? old : recent.map(FollowingBackend::answer);
    if (found.isEmpty()) {
      requireSettled(l.follower());
    }
    return found;
  }

  /**
   * Refuses to answer "absent" while the follower is not settled: the node may hold the txid or
   * block in what the layers lack (blocks it mined while bbf-index was stopped, its mempool while
   * it cannot be reached), so the client is told to retry (503 with the state), never "absent".
   */
  private static void requireSettled(Follower follower) {
    if (follower.settled()) {
      return;
    }
    FollowStatus s = follower.status();
    String code = s.state() == FollowState.NODE_UNREACHABLE ? "node_unreachable" : "catching_up";
    throw new BackendUnavailableException(code, unsettledReason(s), null);
  }

  private static String unsettledReason(FollowStatus s) {
    return "the follower is "
        + s.state().text()
        + (s.lastError() == null ? "" : " (" + s.lastError() + ")")
        + ": served tip "
        + s.servedTipHeight()
        + (s.nodeTipHeight() < 0 ? "" : ", the node's " + s.nodeTipHeight())
        + "; an unknown id is not known to be absent until it follows the node";
  }

  /** A history answer with its confirmations counted from the served tip, not the snapshot's. */
  private static TxAnswer onServedTip(TxAnswer a, Follower follower) {
    if (!a.onActiveChain()) {
      return a;
    }
    return new TxAnswer(
        a.blockHash(),
        a.height(),
        follower.servedTipHeight() - a.height() + 1,
        a.file(),
        a.dataPos(),
        a.txOffset(),
        true);
  }

  private static TxAnswer answer(TipAnswer t) {
    return switch (t) {
      case TipAnswer.InMempool m -> TxAnswer.mempool();
      case TipAnswer.Confirmed c ->
          c.location() == null
              ? new TxAnswer(
                  c.blockHash().internal(),
                  c.height(),
                  c.confirmations(),
                  TxAnswer.NO_LOCATION,
                  0,
                  0,
                  true)
              : new TxAnswer(
                  c.blockHash().internal(),
                  c.height(),
                  c.confirmations(),
                  c.location().file(),
                  c.location().dataPos(),
                  c.txOffset(),
                  true);
      case TipAnswer.Stale s ->
          new TxAnswer(
              s.blockHash().internal(),
              s.height(),
              s.confirmations(),
              TxAnswer.NO_LOCATION,
              0,
              0,
              false);
    };
  }

  @Override
  public boolean blockMaybe(byte[] hash) {
    Layers l = layers;
    return l.history().blockMaybe(hash)
        || l.follower().block(Hash32.ofInternal(hash)).isPresent()
        || !l.follower().settled();
  }

  /**
   * The follower's blocks first: those after the snapshot, and snapshot blocks a reorg disconnected
   * since (the history still has them on its active chain); then the history's, with confirmations
   * from the served tip.
   */
  @Override
  public Optional<BlockAnswer> lookupBlock(byte[] hash) {
    Layers l = layers;
    Optional<TipBlock> recent = l.follower().block(Hash32.ofInternal(hash));
    if (recent.isPresent() && recent.get().block().header() != null) {
      return recent.map(TipBlocks::answer);
    }
    Optional<BlockAnswer> found =
        l.history().lookupBlock(hash).map(b -> TipBlocks.onServedTip(b, l.follower()));
    if (found.isEmpty()) {
      requireSettled(l.follower());
    }
    return found;
  }

  /**
   * The history's block files: the node appends to the same files, so the tip's blocks are read
   * through them too once the history knows their position.
   */
  @Override
  public Optional<BlockData> blockData() {
    return layers.history().blockData();
  }

  @Override
  public List<FilterSummary> filters() {
    return layers.history().filters();
  }

  @Override
  public List<FilterSummary> lookupFilters() {
    return layers.history().lookupFilters();
  }

  @Override
  public int tipHeight() {
    return layers.follower().servedTipHeight();
  }

  /** The snapshot's: the node's txindex as the history reads it. */
  @Override
  public String txindexLayout() {
    return layers.history().txindexLayout();
  }

  @Override
  public String txindexLocation() {
    return layers.history().txindexLocation();
  }

  @Override
  public String txindexSource() {
    return layers.history().txindexSource();
  }

  @Override
  public long leveldbReads() {
    return retiredReads + layers.history().leveldbReads();
  }

  @Override
  public String notReadyReason() {
    Layers l = layers;
    return l.history().ready()
        ? unsettledReason(l.follower().status())
        : l.history().notReadyReason();
  }

  /** The history is loaded and the follower settled: answers reflect the node. */
  @Override
  public boolean ready() {
    Layers l = layers;
    return l.history().ready() && l.follower().settled();
  }

  @Override
  public Map<String, Object> status() {
    Follower follower = layers.follower();
    FollowStatus s = follower.status();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("network", s.network());
    body.put("nodeTip", tip(s.nodeTipHash(), s.nodeTipHeight()));
    body.put("servedTip", tip(s.servedTipHash(), s.servedTipHeight()));
    body.put("snapshotTip", tip(s.snapshotTipHash(), s.snapshotTipHeight()));
    Map<String, Object> follow = new LinkedHashMap<>();
    follow.put("state", s.state().text());
    follow.put("since", s.since().toString());
    follow.put("notifications", s.notifications());
    follow.put("lastError", s.lastError());
    follow.put("lagBlocks", follower.lagBlocks());
    HistoryRefresh r = refresh;
    follow.put("refreshes", r == null ? 0 : r.refreshes());
    body.put("follow", follow);
    body.put("mempoolSize", s.mempoolSize());
    body.put("tipHeight", s.servedTipHeight());
    return body;
  }

  private static Map<String, Object> tip(@Nullable Hash32 hash, int height) {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("hash", hash == null ? null : hash.displayHex());
    t.put("height", height);
    return t;
  }

  /** The follower's metrics (names in app/METRICS.md). */
  @Override
  public void bindTo(MeterRegistry registry) {
    // One FollowStats across refreshes (FollowServe passes it to every follower): counters never go
    // back.
    FollowStats stats = layers.follower().stats();
    Gauge.builder("bbf.follow.lag.blocks", this, b -> b.follower().lagBlocks())
        .description("blocks the served tip trails the node's tip by")
        .register(registry);
    Gauge.builder("bbf.follow.lag.seconds", this, b -> b.follower().lagSeconds())
        .description("seconds the node's tip has been ahead of the served tip")
        .register(registry);
    Gauge.builder("bbf.follow.mempool.size", this, b -> b.follower().mempoolSize())
        .description("transactions in the followed node's mempool")
        .register(registry);
    Gauge.builder("bbf.follow.cuckoo.load", this, b -> b.follower().tipFilterLoad())
        .tag("layer", "tip")
        .description("occupied slots of the layer's cuckoo filter")
        .register(registry);
    Gauge.builder("bbf.follow.cuckoo.load", this, b -> b.follower().mempoolFilterLoad())
        .tag("layer", "mempool")
        .description("occupied slots of the layer's cuckoo filter")
        .register(registry);
    Gauge.builder(
            "bbf.follow.snapshot.height", this, b -> b.follower().status().snapshotTipHeight())
        .description("tip height of the history snapshot served (grows with each refresh)")
        .register(registry);
    FunctionCounter.builder("bbf.follow.blocks.connected", stats, FollowStats::blocksConnected)
        .register(registry);
    FunctionCounter.builder(
            "bbf.follow.blocks.disconnected", stats, FollowStats::blocksDisconnected)
        .register(registry);
    FunctionCounter.builder("bbf.follow.mempool.resyncs", stats, FollowStats::mempoolResyncs)
        .register(registry);
    FunctionCounter.builder("bbf.follow.zmq.gaps", stats, FollowStats::zmqGaps).register(registry);
    int lower = 1;
    for (int b = 0; b <= FollowStats.REORG_DEPTH_BOUNDS.length; b++) {
      String depth =
          b == FollowStats.REORG_DEPTH_BOUNDS.length
              ? lower + "+"
              : lower == FollowStats.REORG_DEPTH_BOUNDS[b]
                  ? Integer.toString(lower)
                  : lower + "-" + FollowStats.REORG_DEPTH_BOUNDS[b];
      int bucket = b;
      FunctionCounter.builder("bbf.follow.reorgs", stats, s -> s.reorgs(bucket))
          .tag("depth", depth)
          .description("reorgs by depth (blocks disconnected)")
          .register(registry);
      if (b < FollowStats.REORG_DEPTH_BOUNDS.length) {
        lower = FollowStats.REORG_DEPTH_BOUNDS[b] + 1;
      }
    }
    // The same depths as a histogram (buckets at the counters' bounds), for quantiles and sums.
    DistributionSummary depths =
        DistributionSummary.builder("bbf.follow.reorg.depth")
            .baseUnit("blocks")
            .description("blocks disconnected by each reorg")
            .serviceLevelObjectives(
                Arrays.stream(FollowStats.REORG_DEPTH_BOUNDS).asDoubleStream().toArray())
            .register(registry);
    stats.onReorg(depths::record);
    for (FollowState state : FollowState.values()) {
      Gauge.builder("bbf.follow.state", this, b -> b.follower().status().state() == state ? 1 : 0)
          .tag("state", state.name().toLowerCase(java.util.Locale.ROOT))
          .description("1 for the follower's current state")
          .register(registry);
    }
  }

  @Override
  public void close() {
    HistoryRefresh r = refresh;
    if (r != null) {
      r.close();
    }
    try {
      closeLayers(layers);
      events.close();
    } finally {
      SnapshotDirectories.Claim w = workDir;
      if (w != null) {
        try {
          w.close();
        } catch (java.io.IOException e) {
          LOG.log(Level.WARNING, "deleting the snapshot directory: " + e);
        }
      }
    }
  }

  /** Stops the follower, then closes the history. */
  static void closeLayers(Layers l) {
    try {
      l.follower().close();
    } catch (java.io.IOException e) {
      LOG.log(Level.WARNING, "closing the follower: " + e);
    } finally {
      l.history().close();
    }
  }
}
