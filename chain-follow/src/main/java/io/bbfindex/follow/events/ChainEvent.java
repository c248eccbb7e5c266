package io.bbfindex.follow.events;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One change the follower applied, reported in the order it applied them: a tx entered or left the
 * mempool, a block was connected or disconnected, or the mempool was taken again as a whole (a
 * resync reports no per-tx changes: a listener looks again at the txids it cares about); and when
 * the node is lost and found again.
 */
public sealed interface ChainEvent {

  /** A tx entered the node's mempool (ZMQ {@code A}). */
  record TxEntered(Hash32 txid) implements ChainEvent {
    public TxEntered {
      Objects.requireNonNull(txid, "txid");
    }
  }

  /**
   * A tx left the mempool for another reason than a block including it (ZMQ {@code R}: the node
   * never sends one for inclusion; that is {@link BlockConnected}).
   */
  record TxLeft(Hash32 txid, Removal removal) implements ChainEvent {
    public TxLeft {
      Objects.requireNonNull(txid, "txid");
      Objects.requireNonNull(removal, "removal");
    }
  }

  /** A block joined the active chain at {@code height}; {@code txids} in block order. */
  record BlockConnected(Hash32 hash, int height, List<Hash32> txids) implements ChainEvent {
    public BlockConnected {
      Objects.requireNonNull(hash, "hash");
      txids = List.copyOf(txids);
    }
  }

  /** A block left the active chain (a reorg): its txs are no longer confirmed by it. */
  record BlockDisconnected(Hash32 hash, int height, List<Hash32> txids) implements ChainEvent {
    public BlockDisconnected {
      Objects.requireNonNull(hash, "hash");
      txids = List.copyOf(txids);
    }
  }

  /** The mempool was taken again as a whole (start, ZMQ gap, polling): per-tx changes unknown. */
  record MempoolResynced() implements ChainEvent {}

  /**
   * The follower lost its node ({@code stale}: it answers from what it knew when the node stopped
   * answering, which may be old by now; {@code reason} says why), or follows it again ({@code
   * stale} false: reported once its blocks and mempool were caught up, after their own events).
   */
  record FollowHealth(boolean stale, @Nullable String reason) implements ChainEvent {}
}
