package io.bbfindex.follow.layer;

import io.bbfindex.follow.Hash32;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.base.VarInt;
import org.bitcoinj.core.Transaction;

/**
 * A block as the tip layer needs it: its hash, its parent, and each transaction's txid with its
 * offset after the 80-byte header (the base of Core's txindex {@code nTxOffset}).
 *
 * @param txids internal order, in block order
 * @param txOffsets {@code txOffsets[i]} is the byte offset of tx i from the end of the header
 */
public record DecodedBlock(Hash32 hash, Hash32 prevHash, Hash32[] txids, long[] txOffsets) {
  static final int HEADER_BYTES = 80;

  /**
   * Parses a serialized block ({@code /rest/block/<hash>.bin} or {@code getblock <hash> 0}).
   *
   * @throws IllegalArgumentException if the bytes are not one whole block
   */
  public static DecodedBlock parse(byte[] raw) {
    if (raw.length < HEADER_BYTES + 1) {
      throw new IllegalArgumentException("a block is at least 81 bytes: " + raw.length);
    }
    Hash32 hash = Hash32.ofInternal(Sha256Hash.hashTwice(raw, 0, HEADER_BYTES));
    Hash32 prev = Hash32.ofInternal(raw, 4);
    ByteBuffer buf = ByteBuffer.wrap(raw);
    buf.position(HEADER_BYTES);
    try {
      long count = VarInt.read(buf).longValue();
      if (count < 1 || count > raw.length / 10) {
        throw new IllegalArgumentException("block " + hash + ": implausible tx count " + count);
      }
      Hash32[] txids = new Hash32[(int) count];
      long[] offsets = new long[(int) count];
      for (int i = 0; i < count; i++) {
        offsets[i] = buf.position() - HEADER_BYTES;
        Transaction tx = Transaction.read(buf);
        txids[i] = Hash32.ofInternal(tx.getTxId().getReversedBytes());
      }
      if (buf.hasRemaining()) {
        throw new IllegalArgumentException("block " + hash + ": " + buf.remaining() + " bytes after the last tx");
      }
      return new DecodedBlock(hash, prev, txids, offsets);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("block " + hash + " is truncated", e);
    } catch (RuntimeException e) {
      if (e instanceof IllegalArgumentException) {
        throw e;
      }
      throw new IllegalArgumentException("block " + hash + " does not parse: " + e, e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DecodedBlock b && hash.equals(b.hash);
  }

  @Override
  public int hashCode() {
    return hash.hashCode();
  }

  @Override
  public String toString() {
    return "DecodedBlock[" + hash + ", " + txids.length + " txs]";
  }

  /** For tests: the txids as a list. */
  public java.util.List<Hash32> txidList() {
    return Arrays.asList(txids);
  }
}
