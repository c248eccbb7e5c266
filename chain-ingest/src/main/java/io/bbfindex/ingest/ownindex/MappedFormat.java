package io.bbfindex.ingest.ownindex;

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
 * What the mapped files of this package (the own index, {@link OwnIndexFormat}; fingerprint parts,
 * {@link FingerprintFormat}) share before their own fields: the file mapped read-only into an arena
 * of its own, freed if it is refused; then its length, magic, format version and header CRC32C,
 * each failure an {@link OwnIndexCorruptException} naming the file. The header's fields are read
 * from the bytes checked here, never from the mapping again.
 *
 * @param kind what the file is, for messages ("an own txid index")
 * @param magic the file's first bytes
 * @param version the one format version this build reads
 * @param headerBytes the header's length
 * @param offVersion where the version (int, little-endian) is
 * @param offHeaderCrc where the CRC32C of the header bytes before it is
 */
record MappedFormat(
    String kind, byte[] magic, int version, int headerBytes, int offVersion, int offHeaderCrc) {

  private static final ValueLayout.OfInt INT_LE =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** Reads a file's own fields once its preamble is checked. */
  interface Reader<T> {
    /**
     * @param header the header's bytes, checked
     */
    T read(Arena arena, MemorySegment map, byte[] header) throws OwnIndexCorruptException;
  }

  /**
   * Maps {@code path}, checks the preamble and hands the rest to {@code reader}; a read past the
   * mapping's end is a truncated file.
   *
   * @throws OwnIndexCorruptException if the file is not a valid one of this format
   * @throws IOException if it cannot be read
   */
  <T> T open(Path path, Reader<T> reader) throws IOException {
    Arena arena = Arena.ofShared();
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      MemorySegment map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
      try {
        return reader.read(arena, map, checkedHeader(path, map));
      } catch (IndexOutOfBoundsException e) {
        throw new OwnIndexCorruptException(path, "truncated (" + map.byteSize() + " bytes)", e);
      }
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  private byte[] checkedHeader(Path path, MemorySegment map) throws OwnIndexCorruptException {
    if (map.byteSize() < headerBytes) {
      throw new OwnIndexCorruptException(
          path, "truncated: " + map.byteSize() + " bytes, shorter than the header");
    }
    byte[] h = map.asSlice(0, headerBytes).toArray(ValueLayout.JAVA_BYTE);
    if (!Arrays.equals(h, 0, magic.length, magic, 0, magic.length)) {
      throw new OwnIndexCorruptException(path, "not " + kind + " (bad magic)");
    }
    int found = map.get(INT_LE, offVersion);
    if (found != version) {
      throw new OwnIndexCorruptException(
          path, "format version " + found + ", this build reads version " + version);
    }
    CRC32C crc = new CRC32C();
    crc.update(h, 0, offHeaderCrc);
    if ((int) crc.getValue() != map.get(INT_LE, offHeaderCrc)) {
      throw new OwnIndexCorruptException(path, "header CRC32C mismatch");
    }
    return h;
  }
}
