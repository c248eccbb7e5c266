package io.bbfindex.follow.layer;

import io.bbfindex.filters.cuckoo.CuckooHashTable;
import io.bbfindex.ingest.encoding.Hash32;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.StampedLock;
import org.jspecify.annotations.Nullable;

/**
 * The blocks the node connected after the history snapshot's tip: a cuckoo filter over their txids
 * (the negative path, no map access) and the exact txid -> block map behind it (a bucketized cuckoo
 * hash table of flat arrays). {@link #connect} inserts a block's txids, {@link #disconnectTip}
 * deletes them again (a reorg), moving each txid that no connected block holds any more to the
 * stale set, which has its own cuckoo filter (a tx seen only in a block that lost a reorg is
 * answered {@code stale}, as Core's txindex keeps it).
 *
 * <p>One writer (the follower) and any number of readers; a lock keeps each block's insert or
 * delete atomic for readers, and filter probes read optimistically (no lock write).
 */
public final class TipLayer {

  /** A connected block: its txids and where they lie; {@code id} names it in the txid tables. */
  private record Connected(
      int id, DecodedBlock block, int height, @Nullable BlockPosition location) {}

  private final StampedLock lock = new StampedLock();
  // The block the layer builds on: the snapshot's tip, or lower after a reorg reached into the
  // snapshot's blocks (disconnectBase). Guarded by the lock.
  private Hash32 baseHash;
  private int baseHeight;
  private final Deque<Connected> blocks = new ArrayDeque<>();
  // txid -> place (the block's id << 32 | the tx's index in it), in the seeds' bucketized cuckoo
  // hash table: flat arrays, bounded kicks, no object per txid (issue 26). Ids name the blocks.
  private final CuckooHashTable confirmed = new CuckooHashTable();
  private final KeyFilter confirmedFilter = new KeyFilter();
  private final CuckooHashTable stale = new CuckooHashTable();
  private final KeyFilter staleFilter = new KeyFilter();
  private final Map<Integer, Connected> byId = new HashMap<>();
  private int nextId;
  // Blocks by hash, for block answers: the connected ones, and those a reorg disconnected.
  private final Map<Hash32, Connected> connectedByHash = new HashMap<>();
  private final Map<Hash32, Connected> staleByHash = new HashMap<>();

  /** A tip layer on top of the snapshot's tip block ({@code baseHash} at {@code baseHeight}). */
  public TipLayer(Hash32 baseHash, int baseHeight) {
    this.baseHash = baseHash;
    this.baseHeight = baseHeight;
  }

  /** The block the layer builds on. */
  public Hash32 baseHash() {
    long stamp = lock.readLock();
    try {
      return baseHash;
    } finally {
      lock.unlockRead(stamp);
    }
  }

  public int baseHeight() {
    long stamp = lock.readLock();
    try {
      return baseHeight;
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /**
   * A reorg deeper than the layer, into the history snapshot's own blocks: the base block left the
   * active chain. Its txids (fetched from the node, which keeps stale blocks) become stale, as a
   * disconnected tip block's do, and the layer builds on the base's parent from now on.
   *
   * @param base the current base block
   * @throws IllegalStateException if blocks are still connected above the base
   * @throws IllegalArgumentException if {@code base} is not the base block
   */
  public void disconnectBase(DecodedBlock base) {
    long stamp = lock.writeLock();
    try {
      if (!blocks.isEmpty()) {
        throw new IllegalStateException(
            "disconnect the " + blocks.size() + " block(s) above the base first");
      }
      if (!base.hash().equals(baseHash)) {
        throw new IllegalArgumentException("block " + base.hash() + " is not the base " + baseHash);
      }
      Connected c = connected(base, baseHeight, null);
      staleByHash.put(base.hash(), c);
      Hash32[] txids = base.txids();
      for (int i = 0; i < txids.length; i++) {
        putStale(txids[i], c, i);
      }
      baseHash = base.prevHash();
      baseHeight--;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Hash of the newest connected block, or the base's. */
  public Hash32 tipHash() {
    long stamp = lock.readLock();
    try {
      return blocks.isEmpty() ? baseHash : blocks.peekLast().block().hash();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  public int tipHeight() {
    long stamp = lock.readLock();
    try {
      return baseHeight + blocks.size();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** Blocks connected above the base. */
  public int depth() {
    long stamp = lock.readLock();
    try {
      return blocks.size();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /**
   * Connects {@code block} on top of the tip.
   *
   * @param location the block in the node's files, or {@code null}
   * @throws IllegalArgumentException if the block's parent is not the tip
   */
  public void connect(DecodedBlock block, @Nullable BlockPosition location) {
    long stamp = lock.writeLock();
    try {
      Hash32 tip = blocks.isEmpty() ? baseHash : blocks.peekLast().block().hash();
      if (!block.prevHash().equals(tip)) {
        throw new IllegalArgumentException(
            "block " + block.hash() + " builds on " + block.prevHash() + ", not on the tip " + tip);
      }
      Connected c = connected(block, baseHeight + blocks.size() + 1, location);
      blocks.addLast(c);
      connectedByHash.put(block.hash(), c);
      staleByHash.remove(block.hash());
      Hash32[] txids = block.txids();
      for (int i = 0; i < txids.length; i++) {
        byte[] key = txids[i].internal();
        if (confirmed.put(key, 0, place(c, i)).isEmpty()) {
          confirmedFilter.add(txids[i], keysOf(confirmed), confirmed.size());
        }
        if (stale.remove(key, 0).isPresent()) {
          staleFilter.remove(txids[i]);
        }
      }
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Disconnects the newest block (it left the active chain): its txids leave the confirmed set and
   * become stale.
   *
   * @return the disconnected block
   * @throws IllegalStateException if no block is connected above the base
   */
  public DecodedBlock disconnectTip() {
    long stamp = lock.writeLock();
    try {
      Connected c = blocks.pollLast();
      if (c == null) {
        throw new IllegalStateException(
            "no block above the snapshot's tip " + baseHash + " to disconnect");
      }
      connectedByHash.remove(c.block().hash());
      staleByHash.put(c.block().hash(), c);
      Hash32[] txids = c.block().txids();
      for (int i = 0; i < txids.length; i++) {
        byte[] key = txids[i].internal();
        OptionalLong p = confirmed.get(key, 0);
        if (p.isPresent() && blockId(p.getAsLong()) == c.id()) {
          confirmed.remove(key, 0);
          confirmedFilter.remove(txids[i]);
          putStale(txids[i], c, i);
        }
      }
      return c.block();
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Records a block the node holds off its active chain (a fork it learned of while this process
   * was not following: {@code getchaintips}): its txids that no connected block holds are stale.
   *
   * @return how many txids became stale
   */
  public int addStaleBlock(DecodedBlock block, int height) {
    long stamp = lock.writeLock();
    try {
      Connected c = connected(block, height, null);
      if (!connectedByHash.containsKey(block.hash())) {
        staleByHash.put(block.hash(), c);
      }
      Hash32[] txids = block.txids();
      int added = 0;
      for (int i = 0; i < txids.length; i++) {
        if (!confirmed.containsKey(txids[i].internal(), 0) && putStale(txids[i], c, i)) {
          added++;
        }
      }
      return added;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Filter probe: {@code false} means the tip layer certainly does not hold the txid. */
  public boolean mightContain(byte[] keys, int offset) {
    // Optimistic first, as MempoolLayer#mightContain explains.
    long optimistic = lock.tryOptimisticRead();
    boolean maybe =
        confirmedFilter.mightContain(keys, offset) || staleFilter.mightContain(keys, offset);
    if (lock.validate(optimistic)) {
      return maybe;
    }
    long stamp = lock.readLock();
    try {
      return confirmedFilter.mightContain(keys, offset) || staleFilter.mightContain(keys, offset);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** The txid in a connected block, else in a stale one, else empty. */
  public Optional<TipAnswer> lookup(Hash32 txid) {
    long stamp = lock.readLock();
    try {
      byte[] key = txid.internal();
      OptionalLong p = confirmed.get(key, 0);
      if (p.isPresent()) {
        Connected in = blockOf(p.getAsLong());
        int tipHeight = baseHeight + blocks.size();
        return Optional.of(
            new TipAnswer.Confirmed(
                in.block().hash(),
                in.height(),
                tipHeight - in.height() + 1,
                in.location(),
                in.block().txOffsets()[(int) p.getAsLong()]));
      }
      OptionalLong s = stale.get(key, 0);
      if (s.isEmpty()) {
        return Optional.empty();
      }
      Connected in = blockOf(s.getAsLong());
      return Optional.of(new TipAnswer.Stale(in.block().hash(), in.height()));
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /**
   * A block this layer connected (on the active chain, confirmations counted from the layer's tip),
   * or one a reorg disconnected since ({@code confirmations} -1, as Core's getblockheader says off
   * the active chain).
   */
  public Optional<TipBlock> block(Hash32 hash) {
    long stamp = lock.readLock();
    try {
      Connected c = connectedByHash.get(hash);
      if (c != null) {
        int confirmations = baseHeight + blocks.size() - c.height() + 1;
        return Optional.of(new TipBlock(c.block(), c.height(), c.location(), true, confirmations));
      }
      Connected s = staleByHash.get(hash);
      return s == null
          ? Optional.empty()
          : Optional.of(new TipBlock(s.block(), s.height(), s.location(), false, -1));
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** Whether the txid is in a connected block (exact). */
  public boolean isConfirmed(Hash32 txid) {
    long stamp = lock.readLock();
    try {
      return confirmed.containsKey(txid.internal(), 0);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** Hash of the connected block at {@code height}, or empty outside {@code (base, tip]}. */
  public Optional<Hash32> hashAt(int height) {
    long stamp = lock.readLock();
    try {
      int i = height - baseHeight - 1;
      if (i < 0 || i >= blocks.size()) {
        return Optional.empty();
      }
      return Optional.of(blocks.stream().skip(i).findFirst().orElseThrow().block().hash());
    } finally {
      lock.unlockRead(stamp);
    }
  }

  public int confirmedCount() {
    long stamp = lock.readLock();
    try {
      return confirmed.size();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  public int staleCount() {
    long stamp = lock.readLock();
    try {
      return stale.size();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** Occupancy of the confirmed-txid cuckoo filter. */
  public double filterLoad() {
    long stamp = lock.readLock();
    try {
      return confirmedFilter.load();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  private Connected connected(DecodedBlock block, int height, @Nullable BlockPosition location) {
    Connected c = new Connected(nextId++, block, height, location);
    byId.put(c.id(), c);
    return c;
  }

  /** Marks a txid stale in {@code c}; whether it was not stale before. */
  private boolean putStale(Hash32 txid, Connected c, int index) {
    if (stale.put(txid.internal(), 0, place(c, index)).isEmpty()) {
      staleFilter.add(txid, keysOf(stale), stale.size());
      return true;
    }
    return false;
  }

  private static long place(Connected c, int index) {
    return (long) c.id() << 32 | Integer.toUnsignedLong(index);
  }

  private static int blockId(long place) {
    return (int) (place >>> 32);
  }

  private Connected blockOf(long place) {
    Connected c = byId.get(blockId(place));
    if (c == null) {
      throw new IllegalStateException("no block " + blockId(place) + " for a txid of the layer");
    }
    return c;
  }

  /**
   * The table's keys, read only when a filter must be rebuilt at a larger size (rare): a list made
   * then, not kept.
   */
  private static Iterable<Hash32> keysOf(CuckooHashTable table) {
    return () -> {
      List<Hash32> keys = new ArrayList<>(table.size());
      table.forEach((key, value) -> keys.add(Hash32.ofInternal(key)));
      return keys.iterator();
    };
  }
}
