package io.bbfindex.ingest.txindex;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.DamagedBlockException;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.TxLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Finds a txid in Core's hashed txindex the way Core's {@code TxIndex::FindTx} does (v32, PR
 * #35531): hash the txid with the index's salt (SipHash-1-3-UJ, top 40 bits), seek {@code 'x' +
 * prefix}, and for every row with that prefix resolve its block seq to a block ({@code 's'} record
 * → block hash → {@code 'b'} record), read the transaction at {@code nDataPos + offset} of the blk
 * file and compare its txid: prefixes collide (about a million two-way collisions on mainnet). A
 * matching candidate on the active chain wins over one in a stale block. A candidate that does not
 * match is a collision only if its block, checked against its header, really holds another
 * transaction there; damaged bytes are a {@link DamagedBlockException}, never an "absent".
 *
 * <p>The {@code 's'} records (one per connected block, a few MB on mainnet) are read once at {@link
 * #open}, so a lookup costs one LevelDB seek plus one blk read per candidate (and, for a candidate
 * that turns out to be a collision when no active-chain candidate matched, a read of its whole
 * block). Thread-safe after open.
 */
public final class HashedTxLookup {

  /** Header bytes before the tx count: a row's offset must point past them. */
  private static final int HEADER_BYTES = BlockFileReader.HEADER_BYTES;

  /** One digest per lookup thread (a TxidHasher is not thread-safe). */
  private static final ThreadLocal<TxidHasher> TXID_HASHERS =
      ThreadLocal.withInitial(TxidHasher::new);

  private final LevelDbSnapshot db;
  private final SipHash13Uj hasher;
  private final Map<Long, BlockInfo> blocksBySeq;

  /**
   * A snapshot of a running node: rows of blocks its on-disk block index does not hold yet (Core
   * flushes the block index about hourly, the txindex as it goes) are beyond the snapshot, not
   * corruption; the layer that follows the node answers for those blocks.
   */
  private final boolean liveSnapshot;

  private HashedTxLookup(
      LevelDbSnapshot db,
      SipHash13Uj hasher,
      Map<Long, BlockInfo> blocksBySeq,
      boolean liveSnapshot) {
    this.db = db;
    this.hasher = hasher;
    this.blocksBySeq = blocksBySeq;
    this.liveSnapshot = liveSnapshot;
  }

  /**
   * Reads the salt and the {@code 's'} records of a hashed or mixed txindex.
   *
   * @param blockByHash the block index (internal-order hash → block), null when unknown
   * @throws CorruptRecordException if the salt is missing or malformed, or an {@code 's'} record is
   *     malformed or names a block the block index lacks
   * @throws IOException if LevelDB fails
   */
  public static HashedTxLookup open(
      LevelDbSnapshot db, Function<byte[], @Nullable BlockInfo> blockByHash) throws IOException {
    return open(db, blockByHash, false);
  }

  /**
   * As {@link #open(LevelDbSnapshot, Function)}; with {@code liveSnapshot} (a copy of a running
   * node's databases), {@code 's'} records and {@code 'x'} rows of blocks the block index does not
   * hold yet are left out instead of refused.
   */
  public static HashedTxLookup open(
      LevelDbSnapshot db, Function<byte[], @Nullable BlockInfo> blockByHash, boolean liveSnapshot)
      throws IOException {
    byte[] salt = db.get(HashedKeys.SALT);
    if (salt == null) {
      throw new CorruptRecordException(
          db.source() + ": hashed txindex without its 'txid_hash_salt' record");
    }
    SipHash13Uj hasher = HashedKeys.decodeSalt(salt);
    Map<Long, BlockInfo> bySeq = new HashMap<>();
    db.scan(
        HashedKeys.BLOCK_BY_SEQ,
        (k, v) -> {
          long seq = HashedKeys.decodeSeqKey(k);
          if (v.length != 32) {
            throw new CorruptRecordException(
                "'s' record of block seq "
                    + seq
                    + ": "
                    + v.length
                    + " bytes, expected a 32-byte block hash");
          }
          BlockInfo b = blockByHash.apply(v);
          if (b == null && liveSnapshot) {
            return; // connected after the block index was last flushed: beyond this snapshot
          }
          if (b == null) {
            throw new CorruptRecordException(
                "'s' record of block seq "
                    + seq
                    + " names block "
                    + toDisplayHex(v)
                    + ", which the block index lacks");
          }
          bySeq.put(seq, b);
        });
    return new HashedTxLookup(db, hasher, Map.copyOf(bySeq), liveSnapshot);
  }

  /** The index's salt, as a hasher. */
  public SipHash13Uj hasher() {
    return hasher;
  }

  /** Blocks the index has connected (one {@code 's'} record each). */
  public int blockSeqs() {
    return blocksBySeq.size();
  }

  /** The block of a seq, if the index has an {@code 's'} record for it. */
  public Optional<BlockInfo> blockOfSeq(long seq) {
    return Optional.ofNullable(blocksBySeq.get(seq));
  }

  /**
   * Every row whose prefix is the txid's, resolved to a position (not yet checked against the blk
   * file). One LevelDB seek.
   *
   * @throws CorruptRecordException if a row is malformed or names an unknown seq
   * @throws IOException if LevelDB fails
   */
  public List<TxLocation> candidates(byte[] txidInternal) throws IOException {
    long prefix = hasher.prefix40(txidInternal, 0);
    byte[] from = HashedKeys.prefixKey(prefix);
    byte[] to = HashedKeys.prefixKey(prefix + 1); // prefix 2^40-1 + 1 wraps to 'y', still the end
    if (prefix == (1L << 40) - 1) {
      to = new byte[] {HashedKeys.TX_ROW + 1};
    }
    List<TxLocation> out = new ArrayList<>(2);
    db.scan(
        from,
        to,
        (k, v) -> {
          HashedKeys.TxRow row = HashedKeys.decodeTxRow(k);
          BlockInfo b = blocksBySeq.get(row.blockSeq());
          if (b == null && liveSnapshot) {
            return; // a block beyond this snapshot (see liveSnapshot)
          }
          if (b == null) {
            throw new CorruptRecordException(
                "'x' row "
                    + java.util.HexFormat.of().formatHex(k)
                    + " names block seq "
                    + row.blockSeq()
                    + ", which has no 's' record");
          }
          if (b.dataPos() < 0 || row.offsetFromHeader() <= HEADER_BYTES) {
            throw new CorruptRecordException(
                "'x' row "
                    + java.util.HexFormat.of().formatHex(k)
                    + " points at offset "
                    + row.offsetFromHeader()
                    + " of block "
                    + b.hashHex()
                    + (b.dataPos() < 0 ? ", whose data is not on disk" : ", inside its header"));
          }
          out.add(
              new TxLocation(
                  txidInternal.clone(),
                  b.file(),
                  b.dataPos(),
                  row.offsetFromHeader() - HEADER_BYTES,
                  b));
        });
    return out;
  }

  /**
   * Where the txid is, as Core answers: the candidates whose transaction hashes to the txid, the
   * first on the active chain if any, else the first in a stale block.
   *
   * <p>A candidate whose transaction hashes to another txid is a prefix collision only if that
   * other transaction really is in the block at the row's position. Damage to the stored bytes
   * looks the same from the candidate alone (any changed byte changes the hash), and would turn an
   * indexed transaction into a false "absent". So unless an active-chain candidate matched, every
   * other candidate's block is read whole and checked against its header ({@link CommittedTxids}):
   * its transactions must fold to the header's merkle root and one of them must start at the row's
   * position. Collisions are rare (a 40-bit prefix), so the block reads are too.
   *
   * @return empty when no row with the txid's prefix holds it
   * @throws DamagedBlockException if a candidate's block bytes are not what its header commits to
   *     (or the row points where no transaction of its block starts): the txid may be there
   * @throws CorruptRecordException if a row is malformed
   * @throws IOException if LevelDB or a blk file cannot be read
   */
  public Optional<TxLocation> find(byte[] txidInternal, BlockFileReader blocks) throws IOException {
    Objects.requireNonNull(blocks, "blocks");
    TxLocation stale = null;
    List<TxLocation> others = new ArrayList<>(1);
    byte[] txid = new byte[32];
    for (TxLocation c : candidates(txidInternal)) {
      hashCandidate(blocks, c, txid);
      if (!Arrays.equals(txid, txidInternal)) {
        others.add(c); // a prefix collision, or damage: told apart below if it matters
        continue;
      }
      if (c.block().onActiveChain()) {
        return Optional.of(c);
      }
      if (stale == null) {
        stale = c;
      }
    }
    for (TxLocation c : others) {
      requireCollision(blocks, c);
    }
    return Optional.ofNullable(stale);
  }

  /**
   * Checks that the candidate row {@code c} points at another transaction that its block really
   * holds there: a genuine prefix collision.
   */
  private static void requireCollision(BlockFileReader blocks, TxLocation c) throws IOException {
    CommittedTxids committed = CommittedTxids.read(blocks, c.block());
    if (committed.txidAt(HEADER_BYTES + c.txOffset()) == null) {
      throw new DamagedBlockException(
          blocks.blockFile(c.file())
              + " block at "
              + c.dataPos()
              + ": a txindex row points at tx offset "
              + c.txOffset()
              + ", where no transaction of block "
              + c.block().hashHex()
              + " starts");
    }
  }

  /**
   * The txid of the transaction a candidate row points at, into {@code txid}: its stored bytes
   * hashed as they are ({@link TxidHasher}, no transaction object), read again to the block's end
   * when the transaction is longer than the first read.
   *
   * @throws DamagedBlockException if the block's header does not hash to the block, or no
   *     transaction can be read there
   */
  private static void hashCandidate(BlockFileReader blocks, TxLocation c, byte[] txid)
      throws IOException {
    TxidHasher hasher = TXID_HASHERS.get();
    for (int max = BlockFileReader.TX_FIRST_READ; ; max = Integer.MAX_VALUE) {
      BlockFileReader.TxRegion region;
      try {
        region = blocks.readTxRegion(c.file(), c.dataPos(), c.txOffset(), max, c.block().hash());
      } catch (CorruptRecordException e) {
        throw new DamagedBlockException(e.getMessage(), e);
      }
      try {
        hasher.hash(region.bytes(), 0, region.bytes().length, txid, 0);
        return;
      } catch (CorruptRecordException e) {
        if (region.toBlockEnd()) {
          throw atCandidate(region, c, e);
        }
        // longer than the first read: read again, to the block's end
      }
    }
  }

  private static DamagedBlockException atCandidate(
      BlockFileReader.TxRegion region, TxLocation c, CorruptRecordException e) {
    return new DamagedBlockException(
        region.where() + " tx offset " + c.txOffset() + ": " + e.getMessage(), e);
  }
}
