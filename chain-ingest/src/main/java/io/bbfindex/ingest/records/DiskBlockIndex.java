package io.bbfindex.ingest.records;

import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import java.util.Arrays;
import org.bitcoinj.base.Sha256Hash;

/**
 * A decoded {@code 'b'} record of {@code blocks/index} (Core's CDiskBlockIndex).
 *
 * <p>Value layout: VARINT dummy version, VARINT nHeight, VARINT nStatus, VARINT nTx, [VARINT nFile
 * if status has HAVE_DATA or HAVE_UNDO], [VARINT nDataPos if HAVE_DATA], [VARINT nUndoPos if
 * HAVE_UNDO], then the 80-byte block header verbatim. The header must SHA-256d to the key's hash,
 * which is what makes a garbled header or misaligned varints detectable. The other fields are not
 * self-authenticating in Core's format: a garbled height is caught by the chain walk, a garbled
 * position by the header check when the block file is read.
 *
 * @param file {@code -1} when the status has neither HAVE_DATA nor HAVE_UNDO (pruned or
 *     header-only)
 * @param dataPos {@code -1} without HAVE_DATA; else the offset of the header in blk{file}.dat
 * @param undoPos {@code -1} without HAVE_UNDO
 */
public record DiskBlockIndex(
    byte[] hash,
    int dummyVersion,
    int height,
    int status,
    int txCount,
    int file,
    long dataPos,
    long undoPos,
    byte[] header) {

  public static final int HEADER_BYTES = 80;

  /**
   * Decodes a {@code 'b'} record.
   *
   * @param key the full LevelDB key ({@code 'b'} + 32-byte hash)
   * @param value the (de-obfuscated) value
   * @throws CorruptRecordException if the key or value is malformed, truncated, has trailing bytes,
   *     or the header does not hash to the key
   */
  public static DiskBlockIndex decode(byte[] key, byte[] value) throws CorruptRecordException {
    ByteCursor c = new ByteCursor("'b' block index record", key);
    if (key.length != 33 || key[0] != DbKeys.BLOCK_INDEX) {
      throw c.reset(key, 0, key.length)
          .corrupt("key", "expected 'b' + 32-byte hash, got " + key.length + " bytes");
    }
    c.reset(value, 0, value.length);
    int version = c.readVarInt32("version");
    int height = c.readVarInt32("nHeight");
    long status = c.readVarUint32("nStatus");
    long nTx = c.readVarUint32("nTx");
    if (nTx > Integer.MAX_VALUE) {
      throw c.corrupt("nTx", "transaction count " + nTx + " is impossible");
    }
    int s = (int) status;
    int file = -1;
    long dataPos = -1;
    long undoPos = -1;
    if ((s & (BlockStatus.HAVE_DATA | BlockStatus.HAVE_UNDO)) != 0) {
      file = c.readVarInt32("nFile");
    }
    if ((s & BlockStatus.HAVE_DATA) != 0) {
      dataPos = c.readVarUint32("nDataPos");
    }
    if ((s & BlockStatus.HAVE_UNDO) != 0) {
      undoPos = c.readVarUint32("nUndoPos");
    }
    byte[] header = c.readBytes(HEADER_BYTES, "block header");
    c.expectEnd();
    byte[] hash = Arrays.copyOfRange(key, 1, 33);
    if (!Arrays.equals(Sha256Hash.hashTwice(header), hash)) {
      throw c.corrupt("block header", "SHA-256d of the header differs from the key's block hash");
    }
    return new DiskBlockIndex(hash, version, height, s, (int) nTx, file, dataPos, undoPos, header);
  }
}
