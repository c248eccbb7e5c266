package io.bbfindex.ingest.records;

import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CorruptRecordException;

/**
 * The small scalar records of {@code blocks/index}: {@code 'l'} and the {@code 'F'} / {@code 'R'}
 * flags.
 */
public final class FlagRecords {

  private FlagRecords() {}

  /** {@code 'l'}: int32 LE, the highest blk file number Core has written (never negative). */
  public static int decodeLastBlockFile(byte[] value) throws CorruptRecordException {
    ByteCursor c =
        new ByteCursor("'l' last block file record", new byte[] {DbKeys.LAST_BLOCK})
            .reset(value, 0, value.length);
    int n = c.readInt32LE("nLastBlockFile");
    c.expectEnd();
    if (n < 0) {
      throw c.corrupt("nLastBlockFile", "negative file number " + n);
    }
    return n;
  }

  /**
   * A flag value: one byte, {@code '1'} (set) or {@code '0'} (cleared), as Core's WriteFlag writes.
   */
  public static boolean decodeFlag(byte[] key, byte[] value) throws CorruptRecordException {
    ByteCursor c = new ByteCursor("flag record", key).reset(value, 0, value.length);
    int b = c.readUnsignedByte("value");
    c.expectEnd();
    if (b != '1' && b != '0') {
      throw c.corrupt("value", "a flag is '1' or '0', not 0x" + Integer.toHexString(b));
    }
    return b == '1';
  }
}
