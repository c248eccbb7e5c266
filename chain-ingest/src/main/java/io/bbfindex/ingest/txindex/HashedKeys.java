package io.bbfindex.ingest.txindex;

import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CoreVarInt;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.records.DbKeys;

/**
 * Key and value layouts of Core's hashed txindex (v32, PR #35531; {@code BITCOIN-FORMATS.md} §3.5):
 *
 * <pre>
 * 'x' + hash prefix (5 B, big-endian) + block seq (Core VARINT) + tx offset (3 B, big-endian) -> empty
 * 's' + block seq (VARINT)  -> block hash (32 B, internal order)
 * "txid_hash_salt"          -> k0 (uint64 LE), k1 (uint64 LE)
 * "best_block_v2"           -> CBlockLocator
 * </pre>
 *
 * The tx offset counts from the first byte of the block header (legacy {@code nTxOffset} counts
 * after the 80-byte header).
 */
public final class HashedKeys {

  public static final byte TX_ROW = 'x';
  public static final byte BLOCK_BY_SEQ = 's';
  public static final byte[] SALT = DbKeys.stringKey("txid_hash_salt");
  public static final byte[] BEST_BLOCK_V2 = DbKeys.stringKey("best_block_v2");
  public static final int PREFIX_BYTES = 5;
  public static final int OFFSET_BYTES = 3;

  /** Block seqs are uint32 in Core. */
  public static final long MAX_SEQ = CoreVarInt.MAX_UINT32;

  /**
   * One decoded {@code 'x'} key. {@code offsetFromHeader} counts from the block header's first
   * byte.
   */
  public record TxRow(long prefix, long blockSeq, int offsetFromHeader) {}

  private HashedKeys() {}

  /** {@code 'x'} + the 5-byte prefix: the first key of every row with this prefix. */
  public static byte[] prefixKey(long prefix40) {
    byte[] k = new byte[1 + PREFIX_BYTES];
    k[0] = TX_ROW;
    for (int i = 0; i < PREFIX_BYTES; i++) {
      k[1 + i] = (byte) (prefix40 >>> (8 * (PREFIX_BYTES - 1 - i)));
    }
    return k;
  }

  /** The full {@code 'x'} key of a row (what Core writes; used by tests that write rows). */
  public static byte[] txRowKey(long prefix40, long blockSeq, int offsetFromHeader) {
    byte[] p = prefixKey(prefix40);
    byte[] seq = CoreVarInt.encode(blockSeq);
    byte[] k = new byte[p.length + seq.length + OFFSET_BYTES];
    System.arraycopy(p, 0, k, 0, p.length);
    System.arraycopy(seq, 0, k, p.length, seq.length);
    k[k.length - 3] = (byte) (offsetFromHeader >>> 16);
    k[k.length - 2] = (byte) (offsetFromHeader >>> 8);
    k[k.length - 1] = (byte) offsetFromHeader;
    return k;
  }

  /**
   * Decodes an {@code 'x'} key.
   *
   * @throws CorruptRecordException if it is not {@code 'x'} + 5 bytes + one VARINT + exactly 3
   *     bytes
   */
  public static TxRow decodeTxRow(byte[] key) throws CorruptRecordException {
    ByteCursor c = new ByteCursor("'x' hashed txindex row", key).reset(key, 0, key.length);
    if (c.readUnsignedByte("prefix byte") != TX_ROW) {
      throw c.corrupt("prefix byte", "not an 'x' row");
    }
    long prefix = 0;
    for (int i = 0; i < PREFIX_BYTES; i++) {
      prefix = (prefix << 8) | c.readUnsignedByte("hash prefix");
    }
    long seq = CoreVarInt.read(c, MAX_SEQ, "block seq");
    int offset =
        c.readUnsignedByte("tx offset") << 16
            | c.readUnsignedByte("tx offset") << 8
            | c.readUnsignedByte("tx offset");
    c.expectEnd();
    return new TxRow(prefix, seq, offset);
  }

  /** {@code 's'} + VARINT seq. */
  public static byte[] seqKey(long blockSeq) {
    byte[] seq = CoreVarInt.encode(blockSeq);
    byte[] k = new byte[1 + seq.length];
    k[0] = BLOCK_BY_SEQ;
    System.arraycopy(seq, 0, k, 1, seq.length);
    return k;
  }

  /**
   * Decodes the seq of an {@code 's'} key.
   *
   * @throws CorruptRecordException if the key is not {@code 's'} + one VARINT
   */
  public static long decodeSeqKey(byte[] key) throws CorruptRecordException {
    ByteCursor c = new ByteCursor("'s' block-seq record", key).reset(key, 1, key.length - 1);
    long seq = CoreVarInt.read(c, MAX_SEQ, "block seq");
    c.expectEnd();
    return seq;
  }

  /**
   * Decodes the salt record into a hasher.
   *
   * @throws CorruptRecordException if the value is not 16 bytes
   */
  public static SipHash13Uj decodeSalt(byte[] value) throws CorruptRecordException {
    if (value.length != 16) {
      throw new CorruptRecordException(
          "'txid_hash_salt' record: "
              + value.length
              + " bytes, expected 16 (k0, k1 "
              + "as uint64 LE)");
    }
    return new SipHash13Uj(
        io.bbfindex.ingest.encoding.LittleEndian.int64(value, 0),
        io.bbfindex.ingest.encoding.LittleEndian.int64(value, 8));
  }
}
