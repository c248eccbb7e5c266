package io.bbfindex.ingest.leveldb;

import java.nio.file.Path;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Replays a LevelDB {@code MANIFEST}'s VersionEdits (LevelDB's db/version_edit.cc) into the set of
 * live table files and the write-ahead logs still to be replayed: exactly the files a consistent
 * copy of the database needs, whatever else (tables a compaction is still writing, or has just made
 * obsolete) lies in the directory.
 */
public final class ManifestReplay {
  // VersionEdit tags; 8 (large value refs) was never written by a released LevelDB.
  private static final int COMPARATOR = 1;
  private static final int LOG_NUMBER = 2;
  private static final int NEXT_FILE_NUMBER = 3;
  private static final int LAST_SEQUENCE = 4;
  private static final int COMPACT_POINTER = 5;
  private static final int DELETED_FILE = 6;
  private static final int NEW_FILE = 7;
  private static final int PREV_LOG_NUMBER = 9;

  /**
   * @param tables numbers of the live table files ({@code NNNNNN.ldb} or {@code .sst})
   * @param logNumber logs numbered at least this hold writes not yet in a table
   * @param prevLogNumber an older log still to replay (0: none; only LevelDBs before 1.4 set it)
   */
  public record LiveFiles(SortedSet<Long> tables, long logNumber, long prevLogNumber) {

    /** Whether the log file numbered {@code n} holds writes the tables do not. */
    public boolean needsLog(long n) {
      return n >= logNumber || (prevLogNumber != 0 && n == prevLogNumber);
    }
  }

  private ManifestReplay() {}

  /**
   * @param manifest the MANIFEST's path, for messages
   * @param edits its records ({@link LevelDbLog#read})
   * @throws LevelDbOpenException if a record is not a VersionEdit this reader knows
   */
  public static LiveFiles replay(Path manifest, List<byte[]> edits) throws LevelDbOpenException {
    SortedSet<Long> tables = new TreeSet<>();
    long logNumber = 0;
    long prevLogNumber = 0;
    for (byte[] edit : edits) {
      Reader r = new Reader(manifest, edit);
      while (r.more()) {
        int tag = (int) r.varint();
        switch (tag) {
          case COMPARATOR -> r.skipSlice();
          case LOG_NUMBER -> logNumber = r.varint();
          case PREV_LOG_NUMBER -> prevLogNumber = r.varint();
          case NEXT_FILE_NUMBER, LAST_SEQUENCE -> r.varint();
          case COMPACT_POINTER -> {
            r.varint(); // level
            r.skipSlice(); // internal key
          }
          case DELETED_FILE -> {
            r.varint(); // level
            tables.remove(r.varint());
          }
          case NEW_FILE -> {
            r.varint(); // level
            tables.add(r.varint());
            r.varint(); // file size
            r.skipSlice(); // smallest key
            r.skipSlice(); // largest key
          }
          default -> throw r.corrupt("unknown VersionEdit tag " + tag);
        }
      }
    }
    if (edits.isEmpty()) {
      throw new LevelDbOpenException(manifest, "no intact VersionEdit in the MANIFEST");
    }
    return new LiveFiles(tables, logNumber, prevLogNumber);
  }

  /** LevelDB's little-endian base-128 varints and length-prefixed slices. */
  private static final class Reader {
    private final Path manifest;
    private final byte[] b;
    private int pos;

    Reader(Path manifest, byte[] b) {
      this.manifest = manifest;
      this.b = b;
    }

    boolean more() {
      return pos < b.length;
    }

    long varint() throws LevelDbOpenException {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= b.length) {
          throw corrupt("VersionEdit ends inside a varint");
        }
        int x = b[pos++];
        v |= (long) (x & 0x7f) << shift;
        if ((x & 0x80) == 0) {
          return v;
        }
      }
      throw corrupt("varint longer than 64 bits in a VersionEdit");
    }

    void skipSlice() throws LevelDbOpenException {
      long n = varint();
      if (n > b.length - pos) {
        throw corrupt("VersionEdit slice of " + n + " bytes past its end");
      }
      pos += (int) n;
    }

    LevelDbOpenException corrupt(String what) {
      return new LevelDbOpenException(manifest, "corrupt MANIFEST: " + what);
    }
  }
}
