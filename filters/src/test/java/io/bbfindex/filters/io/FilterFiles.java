package io.bbfindex.filters.io;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.TestKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/** Helpers for the file-format tests: building filters and editing files byte by byte. */
final class FilterFiles {

  static final byte[] TIP = TestKeys.sha256d("tip", 1);
  static final FilterMetadata META =
      new FilterMetadata(FilterKind.TX_BLOCK_FILE, 123, 134_217_728L, TIP, 1_700_000_000_000L);

  private FilterFiles() {}

  /** A filter holding {@code keys}. */
  static BlockedBloomFilter filter(BbfGeometry g, long salt, byte[] keys) {
    BlockedBloomFilter f = BlockedBloomFilter.create(g, salt);
    for (int i = 0; i < TestKeys.count(keys); i++) {
      f.add(keys, i * 32);
    }
    return f;
  }

  /** Writes a filter of {@code keys} to {@code file} and returns the file's bytes. */
  static byte[] write(Path file, BbfGeometry g, long salt, byte[] keys, FilterMetadata meta)
      throws IOException {
    try (BlockedBloomFilter f = filter(g, salt, keys)) {
      FilterFile.write(file, f, meta);
    }
    return Files.readAllBytes(file);
  }

  /** A copy of {@code file} with a header edit applied and both checksums recomputed. */
  static byte[] edited(byte[] file, Consumer<ByteBuffer> edit) {
    byte[] copy = file.clone();
    ByteBuffer b = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
    edit.accept(b);
    fixChecksums(copy);
    return copy;
  }

  /**
   * Recomputes the data checksum (over bytes 128 .. end) and the header checksum, so that only the
   * semantic checks can reject the file.
   */
  static void fixChecksums(byte[] file) {
    if (file.length < FilterFileHeader.HEADER_BYTES) {
      return;
    }
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C data = new CRC32C();
    data.update(file, FilterFileHeader.HEADER_BYTES, file.length - FilterFileHeader.HEADER_BYTES);
    b.putInt(FilterFileHeader.OFF_DATA_CRC, (int) data.getValue());
    CRC32C header = new CRC32C();
    header.update(file, 0, FilterFileHeader.OFF_HEADER_CRC);
    b.putInt(FilterFileHeader.OFF_HEADER_CRC, (int) header.getValue());
  }
}
