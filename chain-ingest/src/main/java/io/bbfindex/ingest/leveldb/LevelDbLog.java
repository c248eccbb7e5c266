package io.bbfindex.ingest.leveldb;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads LevelDB's log format (the {@code .log} write-ahead log and the {@code MANIFEST} share it)
 * up to its last intact record, for a snapshot of a directory a live LevelDB is appending to.
 *
 * <p>Why hand-written: no maintained Java library reads this format (leveldbjni only opens whole
 * databases), and opening a copy whose last record is torn makes LevelDB 1.8 with paranoid checks
 * refuse the database ("bad record length", "checksum mismatch"). The format (LevelDB's
 * doc/log_format.md): 32 KiB blocks of physical records {@code crc32c (masked, 4 LE) | length (2
 * LE) | type (1) | data}, types FULL=1, FIRST=2, MIDDLE=3, LAST=4; a block's tail shorter than a
 * header is zero padding. A logical record is a FULL, or a FIRST, MIDDLEs and a LAST.
 *
 * <p>Reading stops at the first physical record that is short, fails its checksum, has an unknown
 * type or breaks the FIRST..LAST sequence: what a writer caught mid-append leaves. Everything
 * before it is returned, with the length of the prefix that ends at the last complete logical
 * record.
 */
public final class LevelDbLog {
  static final int BLOCK = 32 * 1024;
  static final int HEADER = 7;
  private static final int FULL = 1;
  private static final int FIRST = 2;
  private static final int MIDDLE = 3;
  private static final int LAST = 4;
  private static final int MASK_DELTA = 0xa282ead8;

  /**
   * @param records the complete logical records, in order
   * @param intactLength bytes of the file up to the end of the last complete logical record (the
   *     length to cut a torn log to)
   */
  public record Contents(List<byte[]> records, int intactLength) {}

  private LevelDbLog() {}

  /** The intact records of {@code log} (never throws on damage: it ends the intact prefix). */
  public static Contents read(byte[] log) {
    ByteBuffer in = ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN);
    List<byte[]> records = new ArrayList<>();
    int intact = 0;
    byte[] pending = null; // fragments of a FIRST..LAST record so far
    int pos = 0;
    while (true) {
      int leftInBlock = BLOCK - pos % BLOCK;
      if (leftInBlock < HEADER) {
        pos += leftInBlock; // trailer padding
      }
      if (pos + HEADER > log.length) {
        break;
      }
      int crc = in.getInt(pos);
      int length = Short.toUnsignedInt(in.getShort(pos + 4));
      int type = log[pos + 6];
      int end = pos + HEADER + length;
      if (end > log.length
          || end > (pos / BLOCK + 1) * BLOCK
          || !checksumMatches(log, pos, length, crc)) {
        break;
      }
      byte[] data = Arrays.copyOfRange(log, pos + HEADER, end);
      if (type == FULL && pending == null) {
        records.add(data);
        intact = end;
      } else if (type == FIRST && pending == null) {
        pending = data;
      } else if ((type == MIDDLE || type == LAST) && pending != null) {
        pending = concat(pending, data);
        if (type == LAST) {
          records.add(pending);
          pending = null;
          intact = end;
        }
      } else {
        break; // type 0 (preallocated zeros), unknown, or out of sequence
      }
      pos = end;
    }
    return new Contents(records, intact);
  }

  private static boolean checksumMatches(byte[] log, int pos, int length, int stored) {
    CRC32C crc = new CRC32C();
    crc.update(log, pos + 6, 1 + length); // the type byte, then the data
    return masked(crc) == stored;
  }

  /**
   * LevelDB's {@code crc32c::Mask} of {@code crc}'s value, as its logs and table blocks store it:
   * masked so that a CRC of data holding CRCs is not degenerate.
   */
  static int masked(CRC32C crc) {
    int c = (int) crc.getValue();
    return ((c >>> 15) | (c << 17)) + MASK_DELTA;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
