package io.bbfindex.filters.io;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BlockedBloomFilter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * The 128-byte header of format versions 1 and 2 (filters/FORMAT.md is the specification; keep the
 * two in step). All integers little-endian. The versions share the header and differ only in how a
 * key's group is found: version 1 masks (r a power of two), version 2 multiply-shifts (any r), so
 * the version is the geometry's {@link BbfGeometry.Indexing}.
 *
 * <pre>
 *   off size field
 *     0  8   magic            "BBFIDX" 0x00 0x01
 *     8  4   formatVersion    1 (group = mask) or 2 (group = multiply-shift)
 *    12  4   headerLength     128
 *    16  8   dataOffset       128 (a multiple of 64: the data is cache-line aligned in the mapping)
 *    24  8   dataLength       r * k * lw / 8 = file length - dataOffset
 *    32  8   groups r         1 .. 2^32; a power of two in version 1
 *    40  2   k                2, 4, 8, 16 (lw = 32) or 2, 4, 8 (lw = 64)
 *    42  2   lw               32 or 64
 *    44  4   derivationId     1 (salt = 0) or 2 (salt != 0)
 *    48  8   keyCount         >= 0
 *    56  8   salt
 *    64  4   kind             0 .. 4 (FilterKind.code())
 *    68  4   blockFile        >= -1
 *    72  8   bytesCovered     >= 0
 *    80 32   sourceTip
 *   112  8   buildTimeMillis  >= 0
 *   120  4   dataCrc32c       CRC32C of the data section
 *   124  4   headerCrc32c     CRC32C of bytes 0 .. 123
 * </pre>
 */
record FilterFileHeader(
    int formatVersion,
    BbfGeometry geometry,
    long keyCount,
    long salt,
    FilterMetadata metadata,
    int dataCrc,
    int headerCrc) {

  static final byte[] MAGIC = {'B', 'B', 'F', 'I', 'D', 'X', 0, 1};

  /** The newest version, the one new filters are written in. */
  static final int FORMAT_VERSION = 2;

  /** The version whose group index is {@code L2 AND (r - 1)}, r a power of two. */
  static final int MASK_VERSION = 1;

  static final int HEADER_BYTES = 128;
  static final long DATA_OFFSET = 128;

  static final int OFF_VERSION = 8;
  static final int OFF_HEADER_LENGTH = 12;
  static final int OFF_DATA_OFFSET = 16;
  static final int OFF_DATA_LENGTH = 24;
  static final int OFF_GROUPS = 32;
  static final int OFF_K = 40;
  static final int OFF_LW = 42;
  static final int OFF_DERIVATION = 44;
  static final int OFF_KEY_COUNT = 48;
  static final int OFF_SALT = 56;
  static final int OFF_KIND = 64;
  static final int OFF_BLOCK_FILE = 68;
  static final int OFF_BYTES_COVERED = 72;
  static final int OFF_SOURCE_TIP = 80;
  static final int OFF_BUILD_TIME = 112;
  static final int OFF_DATA_CRC = 120;
  static final int OFF_HEADER_CRC = 124;

  private static final ValueLayout.OfLong LE_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt LE_INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfShort LE_SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** The header of {@code filter} as written to disk, checksums included. */
  static byte[] encode(BlockedBloomFilter filter, FilterMetadata meta, int dataCrc) {
    BbfGeometry g = filter.geometry();
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC)
        .putInt(versionOf(g))
        .putInt(HEADER_BYTES)
        .putLong(DATA_OFFSET)
        .putLong(g.byteSize())
        .putLong(g.groups())
        .putShort((short) g.k())
        .putShort((short) g.wordBits())
        .putInt(filter.derivationId())
        .putLong(filter.count())
        .putLong(filter.salt())
        .putInt(meta.kind().code())
        .putInt(meta.blockFile())
        .putLong(meta.bytesCovered())
        .put(meta.sourceTip())
        .putLong(meta.buildTimeMillis())
        .putInt(dataCrc);
    b.putInt(crc32c(b.array(), OFF_HEADER_CRC));
    return b.array();
  }

  /** The format version a filter of geometry {@code g} is written in. */
  static int versionOf(BbfGeometry g) {
    return g.indexing() == BbfGeometry.Indexing.MASK ? MASK_VERSION : FORMAT_VERSION;
  }

  /**
   * Validates the header of a file of {@code size} bytes, given its first min(size, 128) bytes, in
   * an order that gives the most useful message: magic, version, header length, header checksum,
   * then each field's bounds, then the lengths against the file's. The data checksum is left to the
   * caller (it reads the data).
   *
   * @throws FilterFileException naming {@code file} and the first problem found
   */
  static FilterFileHeader decode(Path file, MemorySegment head, long size)
      throws FilterFileException {
    if (size < MAGIC.length
        || MemorySegment.mismatch(head, 0, MAGIC.length, MemorySegment.ofArray(MAGIC), 0, 8)
            != -1) {
      byte[] start = head.asSlice(0, Math.min(size, MAGIC.length)).toArray(ValueLayout.JAVA_BYTE);
      throw new FilterFileException(
          file,
          "not a BBF filter file: expected magic "
              + HexFormat.of().formatHex(MAGIC)
              + " (\"BBFIDX\\0\\1\"), found "
              + HexFormat.of().formatHex(start)
              + (size < MAGIC.length ? " (only " + size + " bytes)" : ""));
    }
    if (size < OFF_HEADER_LENGTH + 4) {
      throw truncated(file, size, "the format version and header length");
    }
    int version = head.get(LE_INT, OFF_VERSION);
    if (version > FORMAT_VERSION || version < 0) {
      throw new FilterFileException(
          file,
          "format version "
              + Integer.toUnsignedString(version)
              + " is newer than the versions"
              + " this reader supports (1 .. "
              + FORMAT_VERSION
              + "): upgrade bbf-index or rebuild"
              + " the filter");
    }
    if (version < 1) {
      throw new FilterFileException(file, "invalid format version " + version);
    }
    int headerLength = head.get(LE_INT, OFF_HEADER_LENGTH);
    if (headerLength != HEADER_BYTES) {
      throw new FilterFileException(
          file,
          "header length "
              + Integer.toUnsignedString(headerLength)
              + " is not "
              + HEADER_BYTES
              + " as format version "
              + version
              + " requires");
    }
    if (size < HEADER_BYTES) {
      throw truncated(file, size, "the " + HEADER_BYTES + "-byte header");
    }
    byte[] header = head.asSlice(0, HEADER_BYTES).toArray(ValueLayout.JAVA_BYTE);
    // From here on the header is known to be whole.
    int storedHeaderCrc = head.get(LE_INT, OFF_HEADER_CRC);
    int headerCrc = crc32c(header, OFF_HEADER_CRC);
    if (storedHeaderCrc != headerCrc) {
      throw new FilterFileException(
          file,
          "header checksum mismatch (stored "
              + hex(storedHeaderCrc)
              + ", computed "
              + hex(headerCrc)
              + "): the header is corrupt");
    }
    long dataOffset = head.get(LE_LONG, OFF_DATA_OFFSET);
    if (dataOffset != DATA_OFFSET) {
      throw new FilterFileException(
          file,
          "dataOffset must be "
              + DATA_OFFSET
              + " in format version "
              + version
              + ": "
              + dataOffset);
    }
    long groups = head.get(LE_LONG, OFF_GROUPS);
    int k = Short.toUnsignedInt(head.get(LE_SHORT, OFF_K));
    int wordBits = Short.toUnsignedInt(head.get(LE_SHORT, OFF_LW));
    BbfGeometry geometry;
    try {
      geometry =
          new BbfGeometry(
              groups,
              k,
              wordBits,
              version == MASK_VERSION
                  ? BbfGeometry.Indexing.MASK
                  : BbfGeometry.Indexing.MULTIPLY_SHIFT);
    } catch (IllegalArgumentException e) {
      throw new FilterFileException(file, "invalid geometry: " + e.getMessage(), e);
    }
    long dataLength = head.get(LE_LONG, OFF_DATA_LENGTH);
    if (dataLength != geometry.byteSize()) {
      throw new FilterFileException(
          file,
          "dataLength "
              + dataLength
              + " does not match the geometry (r * k * lw / 8 = "
              + geometry.byteSize()
              + ")");
    }
    if (size - dataOffset != dataLength) {
      throw new FilterFileException(
          file,
          (size - dataOffset < dataLength ? "truncated" : "trailing bytes")
              + ": the file is "
              + size
              + " bytes, the header says "
              + (dataOffset + dataLength));
    }
    int derivation = head.get(LE_INT, OFF_DERIVATION);
    long salt = head.get(LE_LONG, OFF_SALT);
    if (derivation != BlockedBloomFilter.DERIVATION_UNSALTED
        && derivation != BlockedBloomFilter.DERIVATION_SALTED) {
      throw new FilterFileException(
          file, "unknown bit derivation id " + Integer.toUnsignedString(derivation));
    }
    if ((derivation == BlockedBloomFilter.DERIVATION_UNSALTED) != (salt == 0)) {
      throw new FilterFileException(
          file,
          "derivation id "
              + derivation
              + " does not match the salt (id 1 needs salt 0, id 2 a"
              + " non-zero salt)");
    }
    long keyCount = head.get(LE_LONG, OFF_KEY_COUNT);
    if (keyCount < 0) {
      throw new FilterFileException(file, "keyCount must be >= 0: " + keyCount);
    }
    FilterKind kind;
    try {
      kind = FilterKind.fromCode(head.get(LE_INT, OFF_KIND));
    } catch (IllegalArgumentException e) {
      throw new FilterFileException(file, "invalid metadata: " + e.getMessage(), e);
    }
    int blockFile = head.get(LE_INT, OFF_BLOCK_FILE);
    long bytesCovered = head.get(LE_LONG, OFF_BYTES_COVERED);
    long buildTime = head.get(LE_LONG, OFF_BUILD_TIME);
    String metaProblem =
        FilterMetadata.problem(blockFile, bytesCovered, FilterMetadata.TIP_BYTES, buildTime);
    if (metaProblem != null) {
      throw new FilterFileException(file, "invalid metadata: " + metaProblem);
    }
    byte[] tip = new byte[FilterMetadata.TIP_BYTES];
    System.arraycopy(header, OFF_SOURCE_TIP, tip, 0, tip.length);
    FilterMetadata meta = new FilterMetadata(kind, blockFile, bytesCovered, tip, buildTime);
    return new FilterFileHeader(
        version, geometry, keyCount, salt, meta, head.get(LE_INT, OFF_DATA_CRC), storedHeaderCrc);
  }

  private static FilterFileException truncated(Path file, long size, String what) {
    return new FilterFileException(
        file, "truncated: the file is " + size + " bytes, too short for " + what);
  }

  static String hex(int crc) {
    return String.format("0x%08x", crc);
  }

  /** CRC32C of {@code bytes[0 .. length)}. */
  static int crc32c(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }

  /** CRC32C of a segment of any size (ByteBuffer views are limited to 2 GiB, so in slices). */
  static int crc32c(MemorySegment data) {
    CRC32C crc = new CRC32C();
    long slice = 1L << 30;
    for (long at = 0; at < data.byteSize(); at += slice) {
      crc.update(data.asSlice(at, Math.min(slice, data.byteSize() - at)).asByteBuffer());
    }
    return (int) crc.getValue();
  }
}
