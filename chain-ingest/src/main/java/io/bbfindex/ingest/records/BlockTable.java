package io.bbfindex.ingest.records;

import io.bbfindex.ingest.encoding.LittleEndian;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The block index's {@code 'b'} records as columns: row {@code r}'s hash at {@code [32 r, 32 r +
 * 32)} of one array, its header at {@code [80 r, 80 r + 80)} of another, and one primitive array
 * per number. The same content as a list of {@link DiskBlockIndex}, without an object per record.
 *
 * <p>WHY: at mainnet geometry (about 950,000 blocks) a record per block is 2.85 million objects
 * (the record, its hash, its header) that every start of {@code serve} made, read back from all
 * over the heap, and kept: about 190 MB that each young collection then copied. Nine arrays are
 * allocated straight in the old generation, read and written sequentially, and copied by no young
 * collection; and the {@link #write}/{@link #read} encoding is the columns one after another, so
 * the block index cache is read with a few bulk copies.
 *
 * <p>Rows are in the order given (the block index's key order, by hash, when read from LevelDB).
 * The arrays are owned by the table and never handed out; {@link #record} makes a record on demand.
 */
public final class BlockTable {

  public static final int HASH_BYTES = 32;
  public static final int HEADER_BYTES = DiskBlockIndex.HEADER_BYTES;

  /** Bytes a row takes in the {@link #write} encoding. */
  public static final int ENCODED_ROW_BYTES = HASH_BYTES + HEADER_BYTES + 5 * 4 + 2 * 8;

  private static final ValueLayout.OfInt INT_LE =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG_LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private static final VarHandle BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final int size;
  private final byte[] hashes;
  private final byte[] headers;
  private final int[] versions;
  private final int[] heights;
  private final int[] statuses;
  private final int[] txCounts;
  private final int[] files;
  private final long[] dataPos;
  private final long[] undoPos;

  /** The records the table was made of ({@link #of}), answered by {@link #record}; else null. */
  private final DiskBlockIndex @Nullable [] records;

  private BlockTable(int size, DiskBlockIndex @Nullable [] records) {
    this.size = size;
    this.hashes = new byte[Math.multiplyExact(size, HASH_BYTES)];
    this.headers = new byte[Math.multiplyExact(size, HEADER_BYTES)];
    this.versions = new int[size];
    this.heights = new int[size];
    this.statuses = new int[size];
    this.txCounts = new int[size];
    this.files = new int[size];
    this.dataPos = new long[size];
    this.undoPos = new long[size];
    this.records = records;
  }

  /**
   * The records in their order; {@link #record} then answers the very objects given.
   *
   * @throws IllegalArgumentException if a hash is not 32 bytes or a header not 80
   */
  public static BlockTable of(Collection<DiskBlockIndex> records) {
    DiskBlockIndex[] in = records.toArray(new DiskBlockIndex[0]);
    BlockTable t = new BlockTable(in.length, in);
    for (int r = 0; r < in.length; r++) {
      DiskBlockIndex b = in[r];
      if (b.hash().length != HASH_BYTES || b.header().length != HEADER_BYTES) {
        throw new IllegalArgumentException(
            "a block record has a "
                + b.hash().length
                + "-byte hash and a "
                + b.header().length
                + "-byte header (expected: 32 and 80)");
      }
      System.arraycopy(b.hash(), 0, t.hashes, HASH_BYTES * r, HASH_BYTES);
      System.arraycopy(b.header(), 0, t.headers, HEADER_BYTES * r, HEADER_BYTES);
      t.versions[r] = b.dummyVersion();
      t.heights[r] = b.height();
      t.statuses[r] = b.status();
      t.txCounts[r] = b.txCount();
      t.files[r] = b.file();
      t.dataPos[r] = b.dataPos();
      t.undoPos[r] = b.undoPos();
    }
    return t;
  }

  /**
   * Decodes {@code size} rows of the {@link #write} encoding starting at {@code offset}: nine bulk
   * copies.
   *
   * @throws IndexOutOfBoundsException if the segment is shorter than the rows
   */
  public static BlockTable read(MemorySegment in, long offset, int size) {
    BlockTable t = new BlockTable(size, null);
    long at = offset;
    MemorySegment.copy(in, ValueLayout.JAVA_BYTE, at, t.hashes, 0, t.hashes.length);
    at += t.hashes.length;
    MemorySegment.copy(in, ValueLayout.JAVA_BYTE, at, t.headers, 0, t.headers.length);
    at += t.headers.length;
    for (int[] column : new int[][] {t.versions, t.heights, t.statuses, t.txCounts, t.files}) {
      MemorySegment.copy(in, INT_LE, at, column, 0, size);
      at += 4L * size;
    }
    for (long[] column : new long[][] {t.dataPos, t.undoPos}) {
      MemorySegment.copy(in, LONG_LE, at, column, 0, size);
      at += 8L * size;
    }
    return t;
  }

  /**
   * Encodes the rows at {@code offset} ({@link #ENCODED_ROW_BYTES} each), little-endian: all
   * hashes, all headers, then the columns dummyVersion, height, status, txCount, file (4 bytes
   * each), dataPos, undoPos (8 bytes each).
   *
   * @return the offset after the rows
   */
  public long write(MemorySegment out, long offset) {
    long at = offset;
    MemorySegment.copy(hashes, 0, out, ValueLayout.JAVA_BYTE, at, hashes.length);
    at += hashes.length;
    MemorySegment.copy(headers, 0, out, ValueLayout.JAVA_BYTE, at, headers.length);
    at += headers.length;
    for (int[] column : new int[][] {versions, heights, statuses, txCounts, files}) {
      MemorySegment.copy(column, 0, out, INT_LE, at, size);
      at += 4L * size;
    }
    for (long[] column : new long[][] {dataPos, undoPos}) {
      MemorySegment.copy(column, 0, out, LONG_LE, at, size);
      at += 8L * size;
    }
    return at;
  }

  public int size() {
    return size;
  }

  /** Row {@code r}'s hash (a copy, internal order). */
  public byte[] hash(int r) {
    Objects.checkIndex(r, size);
    return Arrays.copyOfRange(hashes, HASH_BYTES * r, HASH_BYTES * r + HASH_BYTES);
  }

  /** Row {@code r}'s 80-byte header (a copy). */
  public byte[] header(int r) {
    Objects.checkIndex(r, size);
    return Arrays.copyOfRange(headers, HEADER_BYTES * r, HEADER_BYTES * r + HEADER_BYTES);
  }

  /** Copies row {@code r}'s hash to {@code dst} at {@code offset}. */
  public void copyHash(int r, byte[] dst, int offset) {
    Objects.checkIndex(r, size);
    System.arraycopy(hashes, HASH_BYTES * r, dst, offset, HASH_BYTES);
  }

  /** Copies {@code length} bytes of row {@code r}'s header, from {@code from}, to {@code dst}. */
  public void copyHeader(int r, int from, byte[] dst, int offset, int length) {
    Objects.checkIndex(r, size);
    Objects.checkFromIndexSize(from, length, HEADER_BYTES);
    System.arraycopy(headers, HEADER_BYTES * r + from, dst, offset, length);
  }

  /** Whether row {@code r}'s hash is {@code hash[offset, offset + 32)}. */
  public boolean hashEquals(int r, byte[] hash, int offset) {
    Objects.checkIndex(r, size);
    return Arrays.equals(
        hashes, HASH_BYTES * r, HASH_BYTES * r + HASH_BYTES, hash, offset, offset + HASH_BYTES);
  }

  /** Whether rows {@code a} and {@code b} have the same hash. */
  public boolean sameHash(int a, int b) {
    return hashEquals(a, hashes, HASH_BYTES * Objects.checkIndex(b, size));
  }

  /** Row {@code r}'s hash's first 8 bytes, big-endian: their unsigned order is the hashes'. */
  public long hashPrefix(int r) {
    Objects.checkIndex(r, size);
    return (long) BIG_ENDIAN_LONG.get(hashes, HASH_BYTES * r);
  }

  /** {@code hash}'s first 8 bytes, big-endian, as {@link #hashPrefix(int)}. */
  public static long hashPrefix(byte[] hash) {
    return (long) BIG_ENDIAN_LONG.get(hash, 0);
  }

  /** Row {@code a}'s hash compared with row {@code b}'s, unsigned byte by byte. */
  public int compareHashes(int a, int b) {
    Objects.checkIndex(a, size);
    Objects.checkIndex(b, size);
    return Arrays.compareUnsigned(
        hashes,
        HASH_BYTES * a,
        HASH_BYTES * a + HASH_BYTES,
        hashes,
        HASH_BYTES * b,
        HASH_BYTES * b + HASH_BYTES);
  }

  /** Row {@code r}'s hash compared with {@code hash}, unsigned byte by byte. */
  public int compareHash(int r, byte[] hash) {
    Objects.checkIndex(r, size);
    return Arrays.compareUnsigned(
        hashes, HASH_BYTES * r, HASH_BYTES * r + HASH_BYTES, hash, 0, hash.length);
  }

  /** Row {@code r}'s nHeight. */
  public int height(int r) {
    return heights[r];
  }

  /** Row {@code r}'s nStatus bits (see {@link BlockStatus}). */
  public int status(int r) {
    return statuses[r];
  }

  /** Row {@code r}'s nTx (0 for a header-only block). */
  public int txCount(int r) {
    return txCounts[r];
  }

  /** Row {@code r}'s blk file number, -1 with neither data nor undo on disk. */
  public int file(int r) {
    return files[r];
  }

  /** Row {@code r}'s offset in its blk file, -1 without data. */
  public long dataPos(int r) {
    return dataPos[r];
  }

  /** The header's nBits (raw int; unsigned as {@link Integer#toUnsignedLong}). */
  public int bits(int r) {
    Objects.checkIndex(r, size);
    return LittleEndian.int32(headers, HEADER_BYTES * r + 72);
  }

  /** Whether row {@code r}'s hashPrev (header bytes 4..36) is all zero (a genesis). */
  public boolean hasZeroPrev(int r) {
    Objects.checkIndex(r, size);
    int at = HEADER_BYTES * r + 4;
    return Arrays.equals(headers, at, at + HASH_BYTES, ZERO, 0, HASH_BYTES);
  }

  /** Row {@code r} as a record: the one given to {@link #of}, or one made now. */
  public DiskBlockIndex record(int r) {
    Objects.checkIndex(r, size);
    if (records != null) {
      return records[r];
    }
    long data = dataPos[r];
    long undo = undoPos[r];
    return new DiskBlockIndex(
        hash(r),
        versions[r],
        heights[r],
        statuses[r],
        txCounts[r],
        files[r],
        data,
        undo,
        header(r));
  }

  /**
   * Row {@code r} as the index answers it.
   *
   * @param active whether the row is on the active chain
   * @param tipHeight the active chain's tip height (for the confirmations)
   */
  public BlockInfo info(int r, boolean active, int tipHeight) {
    return new BlockInfo(
        hash(r),
        heights[r],
        statuses[r],
        txCounts[r],
        files[r],
        dataPos[r],
        undoPos[r],
        header(r),
        active,
        active ? tipHeight - heights[r] + 1 : -1);
  }

  private static final byte[] ZERO = new byte[HASH_BYTES];
}
