package io.bbfindex.ingest;

import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CoreVarInt;
import io.bbfindex.ingest.encoding.CorruptRecordException;

/**
 * A {@code 'f'} record of {@code blocks/index} (Core's CBlockFileInfo): seven VARINTs. A pruned
 * file has all zeros.
 *
 * @param size bytes of blk{file}.dat in use, including the 8-byte magic+size prefixes
 * @param undoSize bytes of rev{file}.dat in use
 */
public record BlockFileInfo(
    int file,
    long blocks,
    long size,
    long undoSize,
    long heightFirst,
    long heightLast,
    long timeFirst,
    long timeLast) {

  /**
   * Decodes the value of key {@code 'f' + int32 LE file}.
   *
   * @throws CorruptRecordException on truncation, overflow or trailing bytes
   */
  public static BlockFileInfo decode(byte[] key, byte[] value) throws CorruptRecordException {
    ByteCursor c = new ByteCursor("'f' block file record", key);
    if (key.length != 5 || key[0] != 'f') {
      throw c.reset(key, 0, key.length).corrupt("key", "expected 'f' + int32 LE file number");
    }
    int file = c.reset(key, 1, 4).readInt32LE("file number");
    if (file < 0) {
      throw c.corrupt("file number", "negative file number " + file);
    }
    c.reset(value, 0, value.length);
    BlockFileInfo info =
        new BlockFileInfo(
            file,
            c.readVarUint32("nBlocks"),
            c.readVarUint32("nSize"),
            c.readVarUint32("nUndoSize"),
            c.readVarUint32("nHeightFirst"),
            c.readVarUint32("nHeightLast"),
            c.readVarInt(CoreVarInt.MAX_INT64, "nTimeFirst"),
            c.readVarInt(CoreVarInt.MAX_INT64, "nTimeLast"));
    c.expectEnd();
    return info;
  }
}
