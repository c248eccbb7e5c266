package io.bbfindex.ingest.ownindex;

import static io.bbfindex.ingest.ownindex.FingerprintFormat.*;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_DATA_CRC;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_DATA_OFFSET;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_KEYS;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_SEED;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_SEGMENT_COUNT;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_SEGMENT_LENGTH;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.SHARD_ENTRY_BYTES;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One fingerprint part ({@link FingerprintFormat}), memory-mapped and verified whole at open
 * (magic, version, header, table and every shard's CRC32C, offsets that tile the file): a damaged
 * part is refused with its name. A lookup is three aligned 8-byte reads of one shard. Thread-safe.
 */
final class FingerprintPart implements AutoCloseable {

  private static final ValueLayout.OfLong LONG_LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final MappedFormat FORMAT =
      new MappedFormat(
          "a fingerprint part", MAGIC, VERSION, HEADER_BYTES, OFF_VERSION, OFF_HEADER_CRC);

  private static final ValueLayout.OfInt INT_LE =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final Path path;
  private final Arena arena;
  private final MemorySegment map;
  private final int shardBits;
  private final long salt;
  private final long keys;
  private final List<FingerprintBlock> blocks;
  private final long[] seeds;
  private final long[] dataOffsets;
  private final FuseShape[] shapes;

  private FingerprintPart(
      Path path,
      Arena arena,
      MemorySegment map,
      int shardBits,
      long salt,
      long keys,
      List<FingerprintBlock> blocks,
      long[] seeds,
      long[] dataOffsets,
      FuseShape[] shapes) {
    this.path = path;
    this.arena = arena;
    this.map = map;
    this.shardBits = shardBits;
    this.salt = salt;
    this.keys = keys;
    this.blocks = blocks;
    this.seeds = seeds;
    this.dataOffsets = dataOffsets;
    this.shapes = shapes;
  }

  /**
   * Maps and verifies {@code path}.
   *
   * @throws OwnIndexCorruptException if it is not a valid fingerprint part of a known version
   */
  static FingerprintPart open(Path path) throws IOException {
    return FORMAT.open(
        path,
        (arena, map, h) -> {
          try {
            return verify(path, arena, map, h);
          } catch (IllegalArgumentException e) {
            throw new OwnIndexCorruptException(
                path, "invalid fingerprint part: " + e.getMessage(), e);
          }
        });
  }

  private static FingerprintPart verify(Path path, Arena arena, MemorySegment map, byte[] h)
      throws OwnIndexCorruptException {
    CRC32C crc = new CRC32C();
    int shardBits = h[OFF_SHARD_BITS];
    int blockCount = map.get(INT_LE, OFF_BLOCK_COUNT);
    if (map.get(INT_LE, OFF_HEADER_LENGTH) != HEADER_BYTES
        || h[OFF_FINGERPRINT_BITS] != FINGERPRINT_BITS
        || h[OFF_ORDINAL_BITS] != ORDINAL_BITS
        || shardBits < 0
        || shardBits > OwnIndexHeader.MAX_SHARD_BITS
        || blockCount < 1
        || blockCount > MAX_BLOCKS) {
      throw new OwnIndexCorruptException(path, "invalid header fields");
    }
    int shards = 1 << shardBits;
    long tableStart = shardTableStart(blockCount);
    long dataStart = dataStart(blockCount, shards);
    if (map.byteSize() < dataStart) {
      throw new OwnIndexCorruptException(path, "truncated inside its tables");
    }
    crc.reset();
    crc.update(map.asSlice(HEADER_BYTES, dataStart - HEADER_BYTES).asByteBuffer());
    if ((int) crc.getValue() != map.get(INT_LE, OFF_TABLE_CRC)) {
      throw new OwnIndexCorruptException(path, "block or shard table CRC32C mismatch");
    }
    List<FingerprintBlock> blocks = new ArrayList<>(blockCount);
    for (int b = 0; b < blockCount; b++) {
      long e = HEADER_BYTES + (long) b * BLOCK_ENTRY_BYTES;
      blocks.add(
          new FingerprintBlock(
              map.asSlice(e, 32).toArray(ValueLayout.JAVA_BYTE), map.get(INT_LE, e + 32), 0));
    }
    long[] seeds = new long[shards];
    long[] offsets = new long[shards];
    FuseShape[] shapes = new FuseShape[shards];
    long expected = dataStart;
    long keys = 0;
    for (int s = 0; s < shards; s++) {
      long e = tableStart + (long) s * SHARD_ENTRY_BYTES;
      seeds[s] = map.get(LONG_LE, e + ENTRY_SEED);
      offsets[s] = map.get(LONG_LE, e + ENTRY_DATA_OFFSET);
      shapes[s] =
          new FuseShape(
              map.get(INT_LE, e + ENTRY_SEGMENT_LENGTH), map.get(INT_LE, e + ENTRY_SEGMENT_COUNT));
      keys += Integer.toUnsignedLong(map.get(INT_LE, e + ENTRY_KEYS));
      long length = 8L * shapes[s].slots();
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
    if (keys != map.get(LONG_LE, OFF_KEY_COUNT)) {
      throw new OwnIndexCorruptException(path, "shards hold " + keys + " keys, the header says");
    }
    return new FingerprintPart(
        path,
        arena,
        map,
        shardBits,
        map.get(LONG_LE, OFF_SALT),
        keys,
        List.copyOf(blocks),
        seeds,
        offsets,
        shapes);
  }

  /**
   * The block the part holds {@code txid} (32 bytes at {@code offset}) in, or -1. A txid the part
   * was not built with answers -1 but with probability 2^-52 (its slots' fingerprint equals its own
   * and their ordinal names a block of the table).
   */
  int find(byte[] txid, int offset) {
    long k0 = TxidKeys.k0(txid, offset);
    long k1 = TxidKeys.k1(txid, offset);
    int s = TxidKeys.shard(k0, shardBits);
    FuseShape shape = shapes[s];
    long hash = TxidKeys.hash(k0, k1, seeds[s]);
    long base = dataOffsets[s];
    long value =
        map.get(LONG_LE, base + 8L * shape.slot(hash, 0))
            ^ map.get(LONG_LE, base + 8L * shape.slot(hash, 1))
            ^ map.get(LONG_LE, base + 8L * shape.slot(hash, 2));
    if ((value & FINGERPRINT_MASK) != fingerprint(k0, k1, salt)) {
      return -1;
    }
    int ordinal = (int) (value >>> FINGERPRINT_BITS);
    return ordinal < blocks.size() ? ordinal : -1;
  }

  /** The part's blocks, in table order (their priority is not stored: 0). */
  List<FingerprintBlock> blocks() {
    return blocks;
  }

  long keys() {
    return keys;
  }

  long bytes() {
    return map.byteSize();
  }

  Path path() {
    return path;
  }

  @Override
  public void close() {
    arena.close();
  }
}
