package io.bbfindex.ingest.ownindex;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.DamagedBlockException;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.txindex.CommittedTxids;
import io.bbfindex.ingest.txindex.TxidHasher;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds a txid through the own index and confirms it in the blk file, as Core's hashed txindex
 * does: the index stores no txid, only a position ({@link PositionPacking}), and for a txid it was
 * not built with it returns an arbitrary one. So every answer is read back: the position must fall
 * inside a block the block index holds with data, the bytes there must be a transaction, and that
 * transaction must hash to the txid (SHA-256d of its serialization without witness, {@link
 * TxidHasher}). Anything else is "not here": never an exception for an unknown txid.
 *
 * <p>A "not here" must also never be false: a txid the index holds whose block bytes were damaged
 * would fail the same checks. So before a position inside a block is answered "not here", the whole
 * block is read and checked against its header ({@link CommittedTxids}: header hash, merkle root):
 * an intact block means the txid is not at that position, so not in the index; a damaged one is a
 * {@link DamagedBlockException}. That costs a block read for the unknown txids that pass the
 * summary filter (its false positives), and none for the others.
 *
 * <p>Thread-safe.
 */
public final class OwnTxLookup implements AutoCloseable {

  private static final ThreadLocal<TxidHasher> HASHERS = ThreadLocal.withInitial(TxidHasher::new);

  private final OwnIndexFile index;
  private final BlockPositions positions;
  private final BlockFileReader blocks;
  // Part files of later blocks (OwnIndexStore's manifest), newest first: asked before this file.
  private final List<OwnTxLookup> newer;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * @param index the own index (owned: closed by {@link #close})
   * @param chain the node's block index (every block, those with data are used)
   * @param blocks reads the node's blk files (not owned)
   */
  public OwnTxLookup(OwnIndexFile index, Collection<BlockInfo> chain, BlockFileReader blocks) {
    this(index, new BlockPositions(chain), blocks, List.of());
  }

  /**
   * One file of a manifest's index: {@code positions} holds only the blocks that file was built
   * from, and {@code newer} (owned too) are asked first ({@link #find}).
   */
  OwnTxLookup(
      OwnIndexFile index,
      BlockPositions positions,
      BlockFileReader blocks,
      List<OwnTxLookup> newer) {
    this.index = Objects.requireNonNull(index, "index");
    this.positions = Objects.requireNonNull(positions, "positions");
    this.blocks = Objects.requireNonNull(blocks, "blocks");
    this.newer = List.copyOf(newer);
  }

  /** The part files asked before this one, newest first. */
  List<OwnTxLookup> newer() {
    return newer;
  }

  /** The index file. */
  public OwnIndexFile file() {
    return index;
  }

  /**
   * Where the txid is, confirmed by its bytes; empty when it is not in the index.
   *
   * @param txid 32 bytes, internal order
   * @throws DamagedBlockException if the block at the index's position is not what its header
   *     commits to (the txid may be there)
   * @throws IOException if a blk file cannot be read
   */
  public Optional<TxLocation> find(byte[] txid) throws IOException {
    // Each file keeps one position a txid; a txid in a block a reorg disconnected and again in a
    // later one can sit in two files: an answer on the active chain wins, else the newest.
    Optional<TxLocation> stale = Optional.empty();
    for (OwnTxLookup part : newer) {
      Optional<TxLocation> hit = part.findHere(txid);
      if (hit.isPresent() && hit.get().block().onActiveChain()) {
        return hit;
      }
      stale = stale.isPresent() ? stale : hit;
    }
    Optional<TxLocation> here = findHere(txid);
    return here.isPresent() && (here.get().block().onActiveChain() || stale.isEmpty())
        ? here
        : stale;
  }

  private Optional<TxLocation> findHere(byte[] txid) throws IOException {
    if (txid.length != 32) {
      throw new IllegalArgumentException("txid must be 32 bytes: " + txid.length);
    }
    long value = index.value(txid, 0);
    PositionPacking packing = index.header().packing();
    int file = packing.file(value);
    long offset = packing.offset(value);
    Optional<BlockInfo> block = positions.blockBefore(file, offset);
    if (block.isEmpty()) {
      return Optional.empty(); // no block there: an arbitrary value of an unknown txid
    }
    BlockInfo b = block.get();
    long txOffset = offset - b.dataPos() - BlockFileReader.HEADER_BYTES;
    if (hashesTo(b, txOffset, txid)) {
      return Optional.of(new TxLocation(txid.clone(), b.file(), b.dataPos(), txOffset, b));
    }
    CommittedTxids.read(blocks, b); // throws DamagedBlockException unless the block is intact
    return Optional.empty();
  }

  /**
   * Whether a transaction starts {@code txOffset} bytes after the header of {@code b} and hashes to
   * {@code txid}; false for bytes that are no transaction or lie past the block.
   */
  private boolean hashesTo(BlockInfo b, long txOffset, byte[] txid) throws IOException {
    TxidHasher hasher = HASHERS.get();
    byte[] found = new byte[32];
    for (int max = BlockFileReader.TX_FIRST_READ; ; max = Integer.MAX_VALUE) {
      BlockFileReader.TxRegion region;
      try {
        region = blocks.readTxRegion(b.file(), b.dataPos(), txOffset, max, b.hash());
        hasher.hash(region.bytes(), 0, region.bytes().length, found, 0);
        return Arrays.equals(found, txid);
      } catch (CorruptRecordException e) {
        if (max == Integer.MAX_VALUE) {
          return false; // past the block, a damaged header, or no transaction there
        }
        // perhaps only longer than the first read: read again, to the block's end
      }
    }
  }

  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return; // a backend closed twice (its server, then its owner) unmaps once
    }
    newer.forEach(OwnTxLookup::close);
    index.close();
  }
}
