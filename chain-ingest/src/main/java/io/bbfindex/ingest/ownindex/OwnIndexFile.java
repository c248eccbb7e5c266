package io.bbfindex.ingest.ownindex;

import static io.bbfindex.ingest.ownindex.OwnIndexFormat.*;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * An own index file, memory-mapped read-only and verified whole at open (magic, version, header and
 * table CRC32C, every shard's CRC32C, offsets and lengths that tile the file exactly): a damaged
 * file is refused with its name, never answered from. Mapped rather than loaded: at mainnet scale
 * the file is about 8 GB, which the page cache holds (or not) for every process at once, and the
 * server starts without reading it into its heap. (Sux4J's {@code GOV3Function} is the same kind of
 * structure, but it is loaded by Java serialization into the heap, and its objects do not map.)
 *
 * <p>A lookup ({@link #value}) is three unaligned 8-byte reads from the mapping. For a txid the
 * index was not built with, the value is arbitrary: callers must confirm it (see {@link
 * OwnTxLookup}). Thread-safe; the mapping lives until {@link #close}.
 */
public final class OwnIndexFile implements AutoCloseable {

  private static final ValueLayout.OfLong LONG_LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT_LE =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final Path path;
  private final Arena arena;
  private final MemorySegment map;
  private final OwnIndexHeader header;
  private final long[] seeds;
  private final long[] dataOffsets;
  private final FuseShape[] shapes;
  private final int valueBits;
  private final long valueMask;

  private OwnIndexFile(
      Path path,
      Arena arena,
      MemorySegment map,
      OwnIndexHeader header,
      long[] seeds,
      long[] dataOffsets,
      FuseShape[] shapes) {
    this.path = path;
    this.arena = arena;
    this.map = map;
    this.header = header;
    this.seeds = seeds;
    this.dataOffsets = dataOffsets;
    this.shapes = shapes;
    this.valueBits = header.packing().valueBits();
    this.valueMask = PackedSlots.mask(valueBits);
  }

  /**
   * Maps and verifies {@code path}.
   *
   * @throws OwnIndexCorruptException if it is not a valid own index file of a known version
   * @throws IOException if it cannot be read
   */
  public static OwnIndexFile open(Path path) throws IOException {
    Arena arena = Arena.ofShared();
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      MemorySegment map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
      try {
        return verify(path, arena, map);
      } catch (IndexOutOfBoundsException e) {
        throw new OwnIndexCorruptException(path, "truncated (" + map.byteSize() + " bytes)", e);
      }
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  private static OwnIndexFile verify(Path path, Arena arena, MemorySegment map)
      throws OwnIndexCorruptException {
    if (map.byteSize() < HEADER_BYTES) {
      throw new OwnIndexCorruptException(
          path, "truncated: " + map.byteSize() + " bytes, shorter than the header");
    }
    byte[] h = map.asSlice(0, HEADER_BYTES).toArray(ValueLayout.JAVA_BYTE);
    if (!Arrays.equals(h, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new OwnIndexCorruptException(path, "not an own txid index (bad magic)");
    }
    int version = map.get(INT_LE, OFF_VERSION);
    if (version != VERSION) {
      throw new OwnIndexCorruptException(
          path, "format version " + version + ", this build reads version " + VERSION);
    }
    CRC32C crc = new CRC32C();
    crc.update(h, 0, OFF_HEADER_CRC);
    if ((int) crc.getValue() != map.get(INT_LE, OFF_HEADER_CRC)) {
      throw new OwnIndexCorruptException(path, "header CRC32C mismatch");
    }
    if (map.get(INT_LE, OFF_HEADER_LENGTH) != HEADER_BYTES) {
      throw new OwnIndexCorruptException(path, "header length is not " + HEADER_BYTES);
    }
    OwnIndexHeader header;
    try {
      header =
          new OwnIndexHeader(
              new PositionPacking(h[OFF_FILE_BITS], h[OFF_OFFSET_BITS]),
              h[OFF_SHARD_BITS],
              map.get(LONG_LE, OFF_KEY_COUNT),
              Arrays.copyOfRange(h, OFF_CHAIN_DIGEST, OFF_CHAIN_DIGEST + 32),
              Arrays.copyOfRange(h, OFF_TIP_HASH, OFF_TIP_HASH + 32),
              map.get(INT_LE, OFF_TIP_HEIGHT));
    } catch (IllegalArgumentException e) {
      throw new OwnIndexCorruptException(path, "invalid header: " + e.getMessage(), e);
    }
    int shards = header.shards();
    long tableEnd = dataStart(shards);
    if (map.byteSize() < tableEnd) {
      throw new OwnIndexCorruptException(path, "truncated inside its shard table");
    }
    crc.reset();
    crc.update(map.asSlice(HEADER_BYTES, tableEnd - HEADER_BYTES).asByteBuffer());
    if ((int) crc.getValue() != map.get(INT_LE, OFF_TABLE_CRC)) {
      throw new OwnIndexCorruptException(path, "shard table CRC32C mismatch");
    }
    long[] seeds = new long[shards];
    long[] offsets = new long[shards];
    FuseShape[] shapes = new FuseShape[shards];
    long expected = tableEnd;
    long keys = 0;
    int bits = header.packing().valueBits();
    for (int s = 0; s < shards; s++) {
      long e = HEADER_BYTES + (long) s * SHARD_ENTRY_BYTES;
      seeds[s] = map.get(LONG_LE, e + ENTRY_SEED);
      offsets[s] = map.get(LONG_LE, e + ENTRY_DATA_OFFSET);
      try {
        shapes[s] =
            new FuseShape(
                map.get(INT_LE, e + ENTRY_SEGMENT_LENGTH),
                map.get(INT_LE, e + ENTRY_SEGMENT_COUNT));
      } catch (IllegalArgumentException x) {
        throw new OwnIndexCorruptException(path, "shard " + s + ": " + x.getMessage(), x);
      }
      keys += Integer.toUnsignedLong(map.get(INT_LE, e + ENTRY_KEYS));
      long length = PackedSlots.bytes(shapes[s].slots(), bits);
      if (offsets[s] != expected || expected + length > map.byteSize()) {
        throw new OwnIndexCorruptException(
            path, "shard " + s + " data at " + offsets[s] + ", expected at " + expected);
      }
      crc.reset();
      crc.update(map.asSlice(offsets[s], length).asByteBuffer());
      if ((int) crc.getValue() != map.get(INT_LE, e + ENTRY_DATA_CRC)) {
        throw new OwnIndexCorruptException(path, "shard " + s + " CRC32C mismatch");
      }
      expected += length;
    }
    if (expected != map.byteSize()) {
      throw new OwnIndexCorruptException(
          path, (map.byteSize() - expected) + " bytes after the last shard");
    }
    if (keys != header.keyCount()) {
      throw new OwnIndexCorruptException(
          path, "shards hold " + keys + " keys, the header says " + header.keyCount());
    }
    return new OwnIndexFile(path, arena, map, header, seeds, offsets, shapes);
  }

  /** The header. */
  public OwnIndexHeader header() {
    return header;
  }

  /** The file. */
  public Path path() {
    return path;
  }

  /** Bytes on disk. */
  public long bytes() {
    return map.byteSize();
  }

  /**
   * The value stored for {@code txid} (internal order, 32 bytes at {@code offset}): XOR of its
   * three slots. Arbitrary (but below {@code 2^valueBits}) for a txid not in the index.
   */
  public long value(byte[] txid, int offset) {
    long k0 = TxidKeys.k0(txid, offset);
    long k1 = TxidKeys.k1(txid, offset);
    int s = TxidKeys.shard(k0, header.shardBits());
    FuseShape shape = shapes[s];
    long hash = TxidKeys.hash(k0, k1, seeds[s]);
    long base = dataOffsets[s];
    return slot(base, shape.slot(hash, 0))
        ^ slot(base, shape.slot(hash, 1))
        ^ slot(base, shape.slot(hash, 2));
  }

  /** Bits {@code [slot * valueBits, ...)} of the shard's bit stream (PackedSlots' layout). */
  private long slot(long base, int slot) {
    long bit = (long) slot * valueBits;
    return (map.get(LONG_LE, base + (bit >>> 3)) >>> (bit & 7)) & valueMask;
  }

  @Override
  public void close() {
    arena.close();
  }
}
