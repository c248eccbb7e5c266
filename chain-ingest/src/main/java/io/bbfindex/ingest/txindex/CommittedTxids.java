package io.bbfindex.ingest.txindex;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.DamagedBlockException;
import io.bbfindex.ingest.blockfile.MerkleTree;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.records.BlockInfo;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.base.VarInt;
import org.jspecify.annotations.Nullable;

/**
 * The txids a block's header commits to, recomputed from the block's stored bytes: the record read
 * whole, its header hashed to the block's hash, every transaction walked and hashed ({@link
 * TxidHasher}) and their merkle tree folded to the header's merkle root, nothing left over. What
 * tells a salted-prefix collision of a hashed txindex (another transaction, which really is in the
 * block at the row's position: the txid asked for is not there) from damage (bytes at that position
 * that are not what the header commits to: no answer can be given).
 */
public final class CommittedTxids {

  /** Where each transaction starts, counted from the header's first byte, in block order. */
  private final long[] offsets;

  /** The txids in block order, internal byte order, back to back. */
  private final byte[] txids;

  private CommittedTxids(long[] offsets, byte[] txids) {
    this.offsets = offsets;
    this.txids = txids;
  }

  /**
   * Reads and checks the block record of {@code block}.
   *
   * @throws DamagedBlockException if the header does not hash to the block, a transaction cannot be
   *     walked, bytes are left over, or the txids do not fold to the header's merkle root
   * @throws IOException if the file cannot be read, or its framing is corrupt
   */
  public static CommittedTxids read(BlockFileReader blocks, BlockInfo block) throws IOException {
    String where = BlockFileReader.displayName(block.file()) + " block at " + block.dataPos();
    byte[] record = blocks.readBlock(block.file(), block.dataPos());
    int headerBytes = BlockFileReader.HEADER_BYTES;
    byte[] headerHash = Sha256Hash.hashTwice(record, 0, headerBytes);
    if (!Arrays.equals(headerHash, block.hash())) {
      throw new DamagedBlockException(
          where
              + ": the header there hashes to "
              + toDisplayHex(headerHash)
              + ", not to the block "
              + block.hashHex());
    }
    ByteBuffer buf = ByteBuffer.wrap(record, headerBytes, record.length - headerBytes);
    int count;
    try {
      long n = VarInt.read(buf).longValue();
      if (n < 1 || n > record.length) {
        throw new DamagedBlockException(where + ": a transaction count of " + n);
      }
      count = (int) n;
    } catch (BufferUnderflowException | IllegalArgumentException | ArithmeticException e) {
      throw new DamagedBlockException(where + ": unreadable transaction count", e);
    }
    long[] offsets = new long[count];
    byte[] txids = new byte[count * 32];
    TxidHasher hasher = new TxidHasher();
    int p = buf.position();
    for (int i = 0; i < count; i++) {
      offsets[i] = p;
      try {
        p = hasher.hash(record, p, record.length, txids, i * 32);
      } catch (CorruptRecordException e) {
        throw new DamagedBlockException(
            where + " tx offset " + (p - headerBytes) + ": " + e.getMessage(), e);
      }
    }
    if (p != record.length) {
      throw new DamagedBlockException(
          where
              + ": "
              + (record.length - p)
              + " bytes after its "
              + count
              + " transactions, inside the block record");
    }
    byte[] root = MerkleTree.ofInternal(txids).root().getReversedBytes();
    if (!Arrays.equals(record, 36, 68, root, 0, 32)) {
      throw new DamagedBlockException(
          where
              + ": its transactions fold to the merkle root "
              + toDisplayHex(root)
              + ", the header says "
              + toDisplayHex(Arrays.copyOfRange(record, 36, 68))
              + ": the stored transactions are damaged");
    }
    return new CommittedTxids(offsets, txids);
  }

  /**
   * The txid (internal order) of the transaction starting {@code offsetFromHeader} bytes after the
   * header's first byte, or null when no transaction of the block starts there.
   */
  public byte @Nullable [] txidAt(long offsetFromHeader) {
    int i = Arrays.binarySearch(offsets, offsetFromHeader);
    return i < 0 ? null : Arrays.copyOfRange(txids, i * 32, i * 32 + 32);
  }
}
