package io.bbfindex.ingest.ownindex;

import static io.bbfindex.ingest.ownindex.OwnIndexFormat.*;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.zip.CRC32C;

/**
 * An own index file, memory-mapped read-only and verified in two steps, so that opening it costs
 * the same at any size: {@link #open} checks what every lookup relies on (magic, version, header
 * and shard table CRC32C, offsets and lengths that tile the file exactly, the key count), and each
 * shard's data is checked against its CRC32C once, before the first value is read from it ({@link
 * #value}) or when {@link #verifyAll} reaches it (the store runs that in the background). At
 * mainnet size the file is about 8 GB: checked whole at open, it kept serve's start-up waiting for
 * seconds (a cold page cache: minutes), while a shard is about 4 MB. A damaged shard is refused
 * with the file's name and the shard's number, never answered from. Mapped rather than loaded: at
 * mainnet scale the file is about 8 GB, which the page cache holds (or not) for every process at
 * once, and the server starts without reading it into its heap. (Sux4J's {@code GOV3Function} is
 * the same kind of structure, but it is loaded by Java serialization into the heap, and its objects
 * do not map.)
 *
 * <p>A lookup ({@link #value}) is three unaligned 8-byte reads from the mapping. For a txid the
 * index was not built with, the value is arbitrary: callers must confirm it (see {@link
 * OwnTxLookup}). Thread-safe; the mapping lives until {@link #close}.
 *
 * <p>A shard checked is unloaded from the mapping after ({@link MemorySegment#unload}): its pages
 * stay in the page cache but not in this process's RSS (which holds what lookups touch), and the
 * kernel may drop them as any cached file page.
 */
public final class OwnIndexFile implements AutoCloseable {

  private static final ValueLayout.OfLong LONG_LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final MappedFormat FORMAT =
      new MappedFormat(
          "an own txid index", MAGIC, VERSION, HEADER_BYTES, OFF_VERSION, OFF_HEADER_CRC);

  private static final ValueLayout.OfInt INT_LE =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final Path path;
  private final Arena arena;
  private final MemorySegment map;
  private final OwnIndexHeader header;
  private final long[] seeds;
  private final long[] dataOffsets;
  private final FuseShape[] shapes;
  private final int[] dataCrcs;
  private final long[] dataLengths;

  /** Per shard: {@link #UNCHECKED}, {@link #SOUND} or {@link #DAMAGED}. */
  private final AtomicIntegerArray checked;

  private final int valueBits;
  private final long valueMask;

  private static final int UNCHECKED = 0;
  private static final int SOUND = 1;
  private static final int DAMAGED = 2;

  /** The shard table as read at open: what each shard's data must be. */
  private record Table(
      long[] seeds, long[] offsets, FuseShape[] shapes, int[] crcs, long[] lengths) {}

  private OwnIndexFile(
      Path path, Arena arena, MemorySegment map, OwnIndexHeader header, Table table) {
    this.path = path;
    this.arena = arena;
    this.map = map;
    this.header = header;
    this.seeds = table.seeds();
    this.dataOffsets = table.offsets();
    this.shapes = table.shapes();
    this.dataCrcs = table.crcs();
    this.dataLengths = table.lengths();
    this.checked = new AtomicIntegerArray(seeds.length);
    this.valueBits = header.packing().valueBits();
    this.valueMask = PackedSlots.mask(valueBits);
  }

  /**
   * Maps {@code path} and checks its header and shard table (not the shards' data: see {@link
   * #value} and {@link #verifyAll}).
   *
   * @throws OwnIndexCorruptException if it is not a valid own index file of a known version
   * @throws IOException if it cannot be read
   */
  public static OwnIndexFile open(Path path) throws IOException {
    return FORMAT.open(path, (arena, map, h) -> verify(path, arena, map, h));
  }

  /**
   * {@link #open} and {@link #verifyAll}: the whole file checked before it is returned.
   *
   * @throws OwnIndexCorruptException if it is not a valid own index file or a shard is damaged
   */
  public static OwnIndexFile openVerified(Path path) throws IOException {
    OwnIndexFile f = open(path);
    try {
      f.verifyAll();
      return f;
    } catch (IOException | RuntimeException e) {
      f.close();
      throw e;
    }
  }

  private static OwnIndexFile verify(Path path, Arena arena, MemorySegment map, byte[] h)
      throws OwnIndexCorruptException {
    CRC32C crc = new CRC32C();
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
    int[] crcs = new int[shards];
    long[] lengths = new long[shards];
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
      crcs[s] = map.get(INT_LE, e + ENTRY_DATA_CRC);
      lengths[s] = length;
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
    return new OwnIndexFile(
        path, arena, map, header, new Table(seeds, offsets, shapes, crcs, lengths));
  }

  /**
   * Checks every shard not checked yet against its CRC32C, in file order (a sequential read of the
   * file).
   *
   * @throws OwnIndexCorruptException naming the first damaged shard
   */
  public void verifyAll() throws OwnIndexCorruptException {
    for (int s = 0; s < seeds.length; s++) {
      requireSound(s);
    }
  }

  /** Shards checked sound so far (of {@code 2^shardBits}). */
  public int shardsVerified() {
    int n = 0;
    for (int s = 0; s < checked.length(); s++) {
      n += checked.get(s) == SOUND ? 1 : 0;
    }
    return n;
  }

  /**
   * Returns once shard {@code s} is known sound: checks it if no one has yet (two threads may both
   * check it: the same answer). A damaged shard stays damaged.
   */
  private void requireSound(int s) throws OwnIndexCorruptException {
    int state = checked.get(s);
    if (state == SOUND) {
      return;
    }
    if (state == UNCHECKED) {
      state = crcOf(s) == dataCrcs[s] ? SOUND : DAMAGED;
      checked.set(s, state);
    }
    if (state == DAMAGED) {
      throw new OwnIndexCorruptException(path, "shard " + s + " CRC32C mismatch");
    }
  }

  /**
   * The CRC32C of shard {@code s}'s data, read through the mapping (the very bytes lookups read,
   * even if the path was replaced since) and then unloaded from it: the pages checked stay in the
   * page cache, not in this process's RSS, and the kernel may drop them as any cached file page.
   */
  private int crcOf(int s) {
    CRC32C crc = new CRC32C();
    MemorySegment data = map.asSlice(dataOffsets[s], dataLengths[s]);
    crc.update(data.asByteBuffer());
    if (data.byteSize() > 0) {
      data.unload();
    }
    return (int) crc.getValue();
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
   * three slots. Arbitrary (but below {@code 2^valueBits}) for a txid not in the index. The first
   * value read from a shard checks the shard first (a few MB at mainnet size).
   *
   * @throws OwnIndexCorruptException if the txid's shard is damaged (naming file and shard)
   */
  public long value(byte[] txid, int offset) throws OwnIndexCorruptException {
    long k0 = TxidKeys.k0(txid, offset);
    long k1 = TxidKeys.k1(txid, offset);
    int s = TxidKeys.shard(k0, header.shardBits());
    if (checked.get(s) != SOUND) {
      requireSound(s);
    }
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
