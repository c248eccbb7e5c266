package io.bbfindex.ingest.records;

import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CorruptRecordException;

/**
 * A decoded txindex {@code 't'} value (Core's CDiskTxPos): VARINT nFile, VARINT nPos, VARINT
 * nTxOffset. {@code dataPos} is the block's nDataPos (its header's offset in blk{file}.dat); {@code
 * txOffset} counts from the end of the 80-byte header and includes the tx-count CompactSize, so the
 * transaction starts at {@code dataPos + 80 + txOffset}.
 */
public record DiskTxPos(int file, long dataPos, long txOffset) {

  /** Decodes one value from the cursor's whole range (trailing bytes are corruption). */
  public static DiskTxPos decode(ByteCursor c) throws CorruptRecordException {
    int file = c.readVarInt32("nFile");
    long pos = c.readVarUint32("nPos");
    long off = c.readVarUint32("nTxOffset");
    c.expectEnd();
    return new DiskTxPos(file, pos, off);
  }

  /** Decodes the value of {@code key} (used in messages). */
  public static DiskTxPos decode(byte[] key, byte[] value) throws CorruptRecordException {
    return decode(new ByteCursor("'t' txindex record", key).reset(value, 0, value.length));
  }

  /** Absolute offset of the transaction in its block file. */
  public long txFileOffset() {
    return dataPos + DiskBlockIndex.HEADER_BYTES + txOffset;
  }
}
