package io.bbfindex.follow.layer;

import io.bbfindex.ingest.encoding.Hash32;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.bitcoinj.base.Sha256Hash;
import org.jspecify.annotations.Nullable;

/**
 * A block as the tip layer needs it: its hash, its parent, and each transaction's txid with its
 * offset after the 80-byte header (the base of Core's txindex {@code nTxOffset}).
 *
 * @param txids internal order, in block order
 * @param txOffsets {@code txOffsets[i]} is the byte offset of tx i from the end of the header
 * @param header the 80-byte header (version, prev, merkle root, time, bits, nonce), or {@code null}
 *     when built without one (tests)
 */
public record DecodedBlock(
    Hash32 hash, Hash32 prevHash, Hash32[] txids, long[] txOffsets, byte @Nullable [] header) {
  static final int HEADER_BYTES = 80;

  /** A block known by its txids only (no header fields to answer with). */
  public DecodedBlock(Hash32 hash, Hash32 prevHash, Hash32[] txids, long[] txOffsets) {
    this(hash, prevHash, txids, txOffsets, null);
  }

  /**
   * Parses a serialized block ({@code /rest/block/<hash>.bin} or {@code getblock <hash> 0}). Only
   * the transactions' framing is read (counts, lengths; a segwit tx's witnesses skipped) and each
   * txid hashed from its bytes in place: no transaction objects, which is what makes a 4,000-tx
   * block cheap to connect ({@code bench follow}).
   *
   * @throws IllegalArgumentException if the bytes are not one whole block
   */
  public static DecodedBlock parse(byte[] raw) {
    if (raw.length < HEADER_BYTES + 1) {
      throw new IllegalArgumentException("a block is at least 81 bytes: " + raw.length);
    }
    Hash32 hash = Hash32.ofInternal(Sha256Hash.hashTwice(raw, 0, HEADER_BYTES));
    Hash32 prev = Hash32.ofInternal(raw, 4);
    Framing f = new Framing(raw, hash);
    f.pos = HEADER_BYTES;
    long count = f.compactSize();
    if (count < 1 || count > raw.length / 10) {
      throw new IllegalArgumentException("block " + hash + ": implausible tx count " + count);
    }
    Hash32[] txids = new Hash32[(int) count];
    long[] offsets = new long[(int) count];
    MessageDigest sha = sha256();
    for (int i = 0; i < count; i++) {
      offsets[i] = (long) f.pos - HEADER_BYTES;
      txids[i] = f.txid(sha);
    }
    if (f.pos != raw.length) {
      throw new IllegalArgumentException(
          "block " + hash + ": " + (raw.length - f.pos) + " bytes after the last tx");
    }
    return new DecodedBlock(hash, prev, txids, offsets, Arrays.copyOf(raw, HEADER_BYTES));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** A bounds-checked walk over transaction framing (BIP 144 for segwit). */
  private static final class Framing {
    private final byte[] raw;
    private final Hash32 block;
    int pos;

    Framing(byte[] raw, Hash32 block) {
      this.raw = raw;
      this.block = block;
    }

    /**
     * Walks one tx and returns its txid: SHA-256d of the serialization without marker, flag and
     * witnesses.
     */
    Hash32 txid(MessageDigest sha) {
      int start = pos;
      skip(4); // version
      boolean segwit = pos + 1 < raw.length && raw[pos] == 0 && raw[pos + 1] != 0;
      if (segwit) {
        skip(2);
      }
      int bodyStart = pos;
      long inputs = compactSize();
      for (long i = 0; i < inputs; i++) {
        skip(36);
        skip(compactSize());
        skip(4);
      }
      long outputs = compactSize();
      for (long o = 0; o < outputs; o++) {
        skip(8);
        skip(compactSize());
      }
      int bodyEnd = pos;
      if (segwit) {
        for (long i = 0; i < inputs; i++) {
          long items = compactSize();
          for (long w = 0; w < items; w++) {
            skip(compactSize());
          }
        }
      }
      skip(4); // lock time
      sha.update(raw, start, 4);
      sha.update(raw, bodyStart, bodyEnd - bodyStart);
      sha.update(raw, pos - 4, 4);
      byte[] once = sha.digest();
      return Hash32.ofInternal(sha.digest(once));
    }

    long compactSize() {
      need(1);
      int first = raw[pos++] & 0xff;
      int bytes = first < 0xfd ? 0 : first == 0xfd ? 2 : first == 0xfe ? 4 : 8;
      need(bytes);
      long v = first < 0xfd ? first : 0;
      for (int i = 0; i < bytes; i++) {
        v |= (long) (raw[pos++] & 0xff) << (8 * i);
      }
      if (v < 0 || v > raw.length) {
        throw new IllegalArgumentException(
            "block " + block + ": length " + v + " at byte " + pos + " exceeds the block");
      }
      return v;
    }

    void skip(long n) {
      need(n);
      pos += (int) n;
    }

    private void need(long n) {
      if (n > raw.length - pos) {
        throw new IllegalArgumentException("block " + block + " is truncated at byte " + pos);
      }
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
