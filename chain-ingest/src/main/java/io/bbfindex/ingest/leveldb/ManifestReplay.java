package io.bbfindex.ingest.leveldb;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
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
   * One live table as its NEW_FILE edit describes it.
   *
   * @param level 0 (tables may overlap) to 6 (each level >= 1 holds disjoint, sorted tables)
   * @param number the file's number ({@code NNNNNN.ldb} or {@code .sst})
   * @param fileSize its length in bytes
   * @param smallest its smallest internal key (user key, then the 8-byte sequence and type tag)
   * @param largest its largest internal key
   */
  public record TableFile(int level, long number, long fileSize, byte[] smallest, byte[] largest) {

    /** Whether {@code userKey} lies in the table's user-key range (LevelDB's bytewise order). */
    public boolean covers(byte[] userKey) {
      return compareUserKey(smallest, userKey) <= 0 && compareUserKey(largest, userKey) >= 0;
    }

    /** The user key of {@code internalKey} compared with {@code userKey}, unsigned bytewise. */
    static int compareUserKey(byte[] internalKey, byte[] userKey) {
      return Arrays.compareUnsigned(
          internalKey, 0, Math.max(0, internalKey.length - 8), userKey, 0, userKey.length);
    }
  }

  /**
   * @param files the live table files by number, with their level and key range
   * @param logNumber logs numbered at least this hold writes not yet in a table
   * @param prevLogNumber an older log still to replay (0: none; only LevelDBs before 1.4 set it)
   */
  public record LiveFiles(SortedMap<Long, TableFile> files, long logNumber, long prevLogNumber) {

    public LiveFiles {
      files = Collections.unmodifiableSortedMap(new TreeMap<>(files));
    }

    /** Numbers of the live table files ({@code NNNNNN.ldb} or {@code .sst}). */
    public SortedSet<Long> tables() {
      return new TreeSet<>(files.keySet());
    }

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
    SortedMap<Long, TableFile> tables = new TreeMap<>();
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
            int level = (int) r.varint();
            long number = r.varint();
            long size = r.varint();
            tables.put(number, new TableFile(level, number, size, r.slice(), r.slice()));
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
      slice();
    }

    byte[] slice() throws LevelDbOpenException {
      long n = varint();
      if (n > b.length - pos) {
        throw corrupt("VersionEdit slice of " + n + " bytes past its end");
      }
      byte[] out = Arrays.copyOfRange(b, pos, pos + (int) n);
      pos += (int) n;
      return out;
    }

    LevelDbOpenException corrupt(String what) {
      return new LevelDbOpenException(manifest, "corrupt MANIFEST: " + what);
    }
  }
}
