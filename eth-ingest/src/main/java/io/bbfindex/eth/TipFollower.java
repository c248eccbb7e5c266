package io.bbfindex.eth;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.web3j.protocol.core.methods.response.Transaction;

/**
 * The tip follower: the blocks above the history, up to the node's head, in the {@link Tip}
 * (through reorgs), and the node's pending transactions. A mined block is added to the tip before
 * its transactions leave the pending set, so a lookup never misses a transaction moving along.
 */
final class TipFollower {
  // the index's logger, as before the split: operators filter on that name
  private static final System.Logger LOG = System.getLogger(EthIndex.class.getName());

  /**
   * A pending transaction not mined after this long is asked of the node again (dropped or
   * replaced?).
   */
  private static final long PENDING_RECHECK_MILLIS = 120_000;

  /** Rechecks per poll, so a flood of stale entries cannot slow the follower down much. */
  private static final int PENDING_RECHECKS_PER_POLL = 20;

  private final EthRpc rpc;
  private final History history;
  private final Tip tip;
  private final Map<TxHash, Long> pending = new ConcurrentHashMap<>();

  /**
   * Every hash put in {@link #pending} since it was built: lookups test it before the map, so a
   * negative does not probe a mempool-sized map (a cache miss) while transactions are pending.
   * Published after the poll's puts; a hash is pending for lookups from then on.
   */
  private volatile SeenKeys pendingSeen = SeenKeys.of(List.of());

  private final AtomicLong reorgs = new AtomicLong();
  private @Nullable BigInteger pendingFilter;
  private boolean pendingUnsupported;

  TipFollower(EthRpc rpc, History history, Tip tip) {
    this.rpc = rpc;
    this.history = history;
    this.tip = tip;
  }

  /** Whether the hash at {@code key[offset ..]} is pending. */
  boolean isPending(byte[] key, int offset) {
    return !pending.isEmpty()
        && pendingSeen.mightContain(key, offset)
        && pending.containsKey(TxHash.of(key, offset));
  }

  int pendingCount() {
    return pending.size();
  }

  long reorgs() {
    return reorgs.get();
  }

  /** New pending hashes from the node's pending-transaction filter; stale entries rechecked. */
  void pollPending() throws EthRpcException {
    if (pendingUnsupported) {
      return;
    }
    List<TxHash> seen;
    try {
      if (pendingFilter == null) {
        pendingFilter = rpc.newPendingTransactionFilter();
      }
      seen = rpc.pendingSince(pendingFilter);
    } catch (EthRpc.ErrorAnswerException e) {
      if (pendingFilter == null) {
        LOG.log(
            Level.WARNING,
            "the node has no pending-transaction filter; pending transactions are not reported: "
                + e.getMessage());
        pendingUnsupported = true;
      }
      pendingFilter = null; // expired: a new one next poll
      return;
    }
    long now = System.currentTimeMillis();
    byte[] key = new byte[TxHash.BYTES];
    List<TxHash> added = new ArrayList<>();
    for (TxHash tx : seen) {
      tx.copyTo(key, 0);
      if (!tip.contains(tx) && history.find(key, 0).isEmpty()) {
        pending.put(tx, now);
        added.add(tx);
      }
    }
    if (!added.isEmpty()) {
      pendingSeen = pendingSeen.plus(added, pending.keySet());
    }
    dropStalePending(now);
  }

  /**
   * Asks the node about pending entries older than {@link #PENDING_RECHECK_MILLIS}: one it no
   * longer knows (dropped, replaced, or reorged out and not re-added) is removed, one it still
   * holds waits another period.
   */
  private void dropStalePending(long now) throws EthRpcException {
    int checked = 0;
    for (Map.Entry<TxHash, Long> e : pending.entrySet()) {
      if (checked == PENDING_RECHECKS_PER_POLL) {
        return;
      }
      if (now - e.getValue() < PENDING_RECHECK_MILLIS) {
        continue;
      }
      checked++;
      Optional<Transaction> tx = rpc.transactionByHash(e.getKey());
      if (tx.isEmpty()) {
        pending.remove(e.getKey());
      } else if (tx.get().getBlockHash() == null) {
        pending.put(e.getKey(), now);
      }
    }
  }

  /**
   * Brings the tip to {@code head} through any reorg (popping its newest blocks until the node
   * agrees, or those above a shorter chain's head), each new block checked against its parent; a
   * mined block's transactions leave the pending set once the block is in the tip.
   */
  void followTip(long head, BooleanSupplier closing) throws IOException {
    long base = history.nextBlock();
    tip.removeBelow(base);
    while (!closing.getAsBoolean()) {
      Optional<BlockTxs> last = tip.last();
      long lastNumber = last.map(BlockTxs::number).orElse(base - 1);
      TxHash lastHash = last.map(BlockTxs::hash).orElse(history.lastBlockHash().orElse(null));
      if (head < lastNumber) {
        if (last.isEmpty()) {
          throw new EthRpcException(
              "the node's head " + head + " is below the index's final block " + lastNumber);
        }
        // The node's chain is shorter than ours (a rollback): its blocks above the head are gone.
        tip.removeLast();
        reorgs.incrementAndGet();
        continue;
      }
      List<BlockTxs> fetched = rpc.blocks(Math.max(0, lastNumber), head);
      if (lastNumber >= 0) {
        BlockTxs anchor = fetched.getFirst();
        if (!anchor.hash().equals(lastHash)) {
          if (last.isEmpty()) {
            throw new EthRpcException(
                "the node's block "
                    + lastNumber
                    + " is not the one the history ends with: a reorg deeper than the finality"
                    + " depth");
          }
          tip.removeLast();
          reorgs.incrementAndGet();
          continue;
        }
        fetched = fetched.subList(1, fetched.size());
      }
      boolean linked = true;
      for (BlockTxs b : fetched) {
        BlockTxs newest = tip.last().orElse(null);
        TxHash parent = newest != null ? newest.hash() : history.lastBlockHash().orElse(null);
        if (parent != null && !b.parentHash().equals(parent)) {
          linked = false; // the chain changed while we read it: start over from the tip
          break;
        }
        tip.append(b);
        for (TxHash tx : b.txs()) {
          pending.remove(tx);
        }
      }
      if (linked) {
        return;
      }
    }
  }
}
