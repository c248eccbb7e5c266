package io.bbfindex.eth;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Ethereum transaction lookups from a node: the finalized chain in {@link History} ranges, newer
 * blocks in the {@link Tip}, pending transactions from the node's pending-transaction filter. This
 * class is the reader (lookups, status) and the life cycle; {@link RangeIngest} moves final ranges
 * into the history, {@link TipFollower} follows the tip and the pending pool, as the Bitcoin side's
 * filter builder and chain follower do.
 *
 * <p>{@link #lookup} never calls the node: the history's record and the tip's map are exact, so a
 * filter "no" and a "maybe" alike are answered in process. Before {@link #caughtUp()} (a store
 * still being built) a hash the index does not hold is refused with {@link CatchingUpException}
 * rather than called absent.
 *
 * <p>Consistency for concurrent lookups: the follower publishes a range to the history before
 * dropping its blocks from the tip, and adds a mined block to the tip before dropping its
 * transactions from the pending set; lookups read pending, then tip, then history, so a transaction
 * moving along never falls between two of them.
 */
public final class EthIndex implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(EthIndex.class.getName());

  private final EthConfig config;
  private final EthRpc rpc;
  private final History history;
  private final Tip tip = new Tip();
  private final RangeIngest ranges;
  private final TipFollower tipFollower;
  private volatile long head = -1;
  private volatile long finalized = -1;
  private volatile boolean caughtUp;

  /** Whether a poll succeeded recently enough to claim "absent". */
  private final Freshness freshness = new Freshness();

  /**
   * After this long without a good poll, "absent" is no longer claimed: a new block may hold the
   * hash.
   */
  static final long STALE_AFTER_NANOS = Freshness.STALE_AFTER_NANOS;

  private volatile @Nullable String lastError;

  /**
   * Why the node's chain is not the one the index holds (another chain id or genesis, or a block
   * the index holds as final no longer on it), or null. While set, every lookup is refused with
   * {@link ChainReplacedException}: the index cannot stand behind any answer, "confirmed" least.
   */
  private volatile @Nullable String chainReplaced;

  /** The chain id and genesis the index was opened with: what every poll checks the node for. */
  private final long chainId;

  private final TxHash genesis;

  /** The follower's last logged failure, so a failure that repeats every poll is logged once. */
  private @Nullable String loggedFailure;

  /** Run after every successful {@link #poll()}: push subscriptions compare their states then. */
  private final List<Runnable> pollListeners = new CopyOnWriteArrayList<>();

  private @Nullable Thread follower;
  private @Nullable Thread watchdog;
  private volatile boolean closing;

  /**
   * Held by whoever changes the index (ingest, a poll): one writer at a time; lookups never take
   * it.
   */
  private final Object writer = new Object();

  private EthIndex(EthConfig config, EthRpc rpc, History history, long chainId, TxHash genesis) {
    this.config = config;
    this.rpc = rpc;
    this.history = history;
    this.ranges = new RangeIngest(config, rpc, history, tip);
    this.tipFollower = new TipFollower(rpc, history, tip);
    this.chainId = chainId;
    this.genesis = genesis;
  }

  /**
   * Connects to the node and opens (or creates) the store.
   *
   * @throws IOException if the node cannot be reached or the store is damaged or of another chain
   */
  public static EthIndex open(EthConfig config) throws IOException {
    EthRpc rpc = EthRpc.connect(config.rpcUrl(), config.rpcTimeout());
    try {
      long chainId = rpc.chainId();
      TxHash genesis = rpc.block(0).hash();
      return new EthIndex(
          config,
          rpc,
          History.open(config.store(), config.rangeBits(), config.fpr(), genesis),
          chainId,
          genesis);
    } catch (IOException | RuntimeException e) {
      rpc.close();
      throw e;
    }
  }

  public EthConfig config() {
    return config;
  }

  /** The node's URL without anything that may be a secret (user info, path, query). */
  public String nodeUrl() {
    return rpc.redactedUrl();
  }

  /** JSON-RPC calls sent so far, by method. */
  public RpcCalls rpcCalls() {
    return rpc.calls();
  }

  /**
   * Where the transaction is, or empty when it is neither confirmed nor pending. Never calls the
   * node.
   *
   * @param key the 32 hash bytes at {@code key[offset .. offset + 32)}
   * @throws CatchingUpException when the index does not hold the hash but is not complete (the
   *     store is still being built, the tip has not reached the head once, or no poll has succeeded
   *     for 30 s), so "absent" would not be known; {@link ChainReplacedException} for every hash
   *     while the node is on another chain than the index
   */
  public Optional<EthAnswer> lookup(byte[] key, int offset) throws CatchingUpException {
    String replaced = chainReplaced;
    if (replaced != null) {
      throw new ChainReplacedException(replaced);
    }
    if (tipFollower.isPending(key, offset)) {
      return Optional.of(EthAnswer.pending());
    }
    Optional<EthTxLocation> at = tip.find(key, offset);
    if (at.isEmpty()) {
      at = history.find(key, offset);
    }
    if (at.isPresent()) {
      return Optional.of(confirmed(at.get(), servedTip()));
    }
    // The common negative: two plain loads, no clock read (see Freshness).
    if (caughtUp && freshness.certainlyFresh()) {
      return Optional.empty();
    }
    return absentUnlessIncomplete();
  }

  /** The negative's slow path: "absent", or why it cannot be said. */
  private Optional<EthAnswer> absentUnlessIncomplete() throws CatchingUpException {
    if (!caughtUp) {
      throw new CatchingUpException(
          "the index is catching up with the node ("
              + history.rangeCount()
              + " ranges stored, block "
              + servedTip()
              + " of "
              + head
              + "); only hashes it already holds are answered");
    }
    if (freshness.stale(System.nanoTime())) {
      throw new CatchingUpException(
          "the node has not been reached for over "
              + STALE_AFTER_NANOS / 1_000_000_000L
              + " s (last error: "
              + lastError
              + "); only hashes the index holds are answered");
    }
    return Optional.empty();
  }

  /**
   * A hash the index does not hold, asked before the index is complete. WHY not ask the node
   * instead: lookups run on the server's event loops, which must not wait on a remote call; and the
   * node's {@code null} is not "absent" below its lookup window anyway.
   */
  public static class CatchingUpException extends Exception {
    private final String message;

    CatchingUpException(String message) {
      super(message);
      this.message = message;
    }

    /** Why there is no answer: there always is a reason. */
    @Override
    public String getMessage() {
      return message;
    }
  }

  /**
   * The node is on another chain than the one the index holds (replaced by a node of another
   * network, reset, or reorganised below the final blocks): no answer of the index, confirmed,
   * pending or absent, can be stood behind until the node is back on the index's chain.
   */
  public static final class ChainReplacedException extends CatchingUpException {
    ChainReplacedException(String reason) {
      super(reason);
    }
  }

  private static EthAnswer confirmed(EthTxLocation at, long tipNumber) {
    return new EthAnswer(
        EthAnswer.Status.CONFIRMED, at, Math.max(1, tipNumber - at.blockNumber() + 1));
  }

  /** Tests: as if the last good poll had been at {@code nanoTime}. */
  void pretendLastGoodPollWas(long nanoTime) {
    freshness.pretendLastGoodPollWas(nanoTime);
  }

  /** The newest block answered from: the tip's, or the history's last. */
  public long servedTip() {
    return tip.last().map(BlockTxs::number).orElse(history.nextBlock() - 1);
  }

  /**
   * Whether the history holds every final range and the tip reached the head at least once (a node
   * out of reach later does not clear it; lookups then refuse "absent" after 30 s).
   */
  public boolean caughtUp() {
    return caughtUp;
  }

  /** The last follower error, or null after a clean poll. */
  public @Nullable String lastError() {
    return lastError;
  }

  /** Why the node's chain is not the index's (lookups are then refused), or null while it is. */
  public @Nullable String chainReplaced() {
    return chainReplaced;
  }

  public EthStatus status() {
    History.Snapshot s = history.snapshot();
    return new EthStatus(
        head,
        finalized,
        servedTip(),
        config.rangeBits(),
        s.ranges().size(),
        s.txs(),
        tip.blockCount(),
        tip.txCount(),
        tipFollower.pendingCount(),
        tipFollower.reorgs(),
        caughtUp,
        rpc.calls().snapshot());
  }

  /**
   * Reads the head and the block taken as final: the node's {@code finalized}, or the head less the
   * configured depth.
   */
  private void refreshHead() throws EthRpcException {
    long h = rpc.headNumber();
    long f;
    if (config.finalityDepth() >= 0) {
      f = h - config.finalityDepth();
    } else {
      f = rpc.finalizedNumber().orElse(h - EthConfig.DEFAULT_DEPTH);
    }
    head = h;
    finalized = Math.max(-1, Math.min(f, h));
  }

  /**
   * Adds every final range the history lacks (what {@code bbf-index ingest} does), then makes it
   * durable.
   *
   * @param progress receives a line every few seconds
   * @return ranges added
   * @throws IOException if the node or the disk fails; the ranges made durable so far stay
   */
  public int ingestFinalRanges(Consumer<String> progress) throws IOException {
    synchronized (writer) {
      refreshHead();
      return ranges.addFinalRanges(finalized, () -> closing, progress);
    }
  }

  /**
   * One follow step: new head and final block, final ranges moved to the history, pending
   * transactions, then the tip brought to the head through any reorg.
   *
   * @throws IOException if the node or the disk fails (the next poll retries)
   */
  public void poll() throws IOException {
    synchronized (writer) {
      refreshHead();
      // Before anything is written: blocks of another chain must never reach the history.
      String replaced = chainProblem();
      if (replaced != null) {
        chainReplaced = replaced;
        throw new EthRpcException(replaced);
      }
      chainReplaced = null;
      ranges.addFinalRanges(finalized, () -> closing, line -> LOG.log(Level.INFO, line));
      tipFollower.pollPending();
      tipFollower.followTip(head, () -> closing);
      caughtUp = history.rangeCount() >= (finalized + 1) >> config.rangeBits();
      lastError = null;
      freshness.goodPoll(System.nanoTime());
    }
    // Outside the writer lock: a listener does lookups, which never need it.
    for (Runnable listener : pollListeners) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        LOG.log(Level.ERROR, "eth follower: a poll listener failed", e);
      }
    }
  }

  /**
   * Runs {@code listener} after every successful {@link #poll()} (on the polling thread), when the
   * lookups answer from what that poll saw: how push subscriptions learn that a pending transaction
   * was mined or a block holding one was reorged out, without a call of their own.
   */
  public void addPollListener(Runnable listener) {
    pollListeners.add(listener);
  }

  /**
   * Whether the node is still on the chain the index holds, asked of the node on every poll: its
   * chain id and genesis block, and the last block the index holds as final (deeper than any reorg
   * the tip handles), which must still be on the node's chain at its height. The reason when not,
   * else null.
   */
  private @Nullable String chainProblem() throws EthRpcException {
    long id = rpc.chainId();
    if (id != chainId) {
      return "the node is on chain id " + id + ", not " + chainId + " as the index: chain replaced";
    }
    TxHash nodeGenesis = rpc.block(0).hash();
    if (!nodeGenesis.equals(genesis)) {
      return "the node's genesis block is "
          + nodeGenesis.hex()
          + ", not "
          + genesis.hex()
          + " as the index's: chain replaced";
    }
    Optional<TxHash> lastFinal = history.lastBlockHash();
    if (lastFinal.isEmpty()) {
      return null;
    }
    long number = history.nextBlock() - 1;
    if (head < number) {
      return "the node's head "
          + head
          + " is below block "
          + number
          + ", which the index holds as final: the node's chain is not the index's";
    }
    TxHash onNode = rpc.block(number).hash();
    if (!onNode.equals(lastFinal.get())) {
      return "the node's block "
          + number
          + " is "
          + onNode.hex()
          + ", not "
          + lastFinal.get().hex()
          + " which the index holds as final: a reorg deeper than the finality depth, or another"
          + " chain";
    }
    return null;
  }

  /** Starts a daemon thread that polls every {@link EthConfig#poll()} until {@link #close()}. */
  public synchronized void startFollowing() {
    if (follower != null) {
      return;
    }
    freshness.watch(true);
    follower =
        Thread.ofPlatform()
            .daemon()
            .name("eth-follower")
            .start(
                () -> {
                  while (!closing) {
                    try {
                      poll();
                      pollSucceeded();
                    } catch (IOException | RuntimeException e) {
                      if (closing) {
                        return;
                      }
                      pollFailed(e);
                    }
                    try {
                      Thread.sleep(config.poll());
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
    // WHY a thread of its own: the follower may wait on the node (a call's timeout) past the point
    // where "absent" must stop being claimed without a look at the clock.
    watchdog =
        Thread.ofPlatform()
            .daemon()
            .name("eth-freshness")
            .start(
                () -> {
                  while (!closing) {
                    freshness.tick(System.nanoTime());
                    try {
                      Thread.sleep(Freshness.TICK_MILLIS);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
  }

  /**
   * Records a failed poll: its reason becomes {@link #lastError()}, and is logged when it is not
   * the one logged last (a node down fails every poll the same way). An unexpected exception is
   * logged with its stack trace.
   */
  private void pollFailed(Exception e) {
    String reason = e.getMessage() != null ? e.getMessage() : e.toString();
    lastError = reason;
    if (reason.equals(loggedFailure)) {
      return;
    }
    loggedFailure = reason;
    if (e instanceof IOException) {
      LOG.log(Level.WARNING, "eth follower: " + reason);
    } else {
      LOG.log(Level.ERROR, "eth follower: unexpected failure", e);
    }
  }

  private void pollSucceeded() {
    if (loggedFailure != null) {
      LOG.log(Level.INFO, "eth follower: polls succeed again after: " + loggedFailure);
      loggedFailure = null;
    }
  }

  @Override
  public void close() {
    closing = true;
    freshness.watch(false);
    Thread t;
    synchronized (this) {
      t = follower;
      if (watchdog != null) {
        watchdog.interrupt();
      }
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      rpc.close();
    } finally {
      // After any ingest or poll still running has stopped at its next range or block.
      synchronized (writer) {
        history.close();
      }
    }
  }
}
