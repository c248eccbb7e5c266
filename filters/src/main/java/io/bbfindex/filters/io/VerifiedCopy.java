package io.bbfindex.filters.io;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * One sequential pass that copies a file's data section into memory and, chunk by chunk while the
 * chunk is still in cache, computes its CRC32C and counts its set bits: reading, verifying and
 * describing a filter cost one pass over its bytes instead of three.
 *
 * @param crc32c CRC32C of the bytes copied
 * @param bitCount set bits in them
 */
record VerifiedCopy(int crc32c, long bitCount) {

  /**
   * Chunk of one read call: a few MiB amortise the system call and stay in the last-level cache for
   * the checksum and the popcount that follow it.
   */
  private static final int CHUNK = 4 << 20;

  /**
   * Fills {@code into} with the file's bytes from {@code offset} on.
   *
   * @throws FilterFileException if the file ends before {@code into} is full (it shrank since its
   *     size was checked)
   */
  static VerifiedCopy of(Path file, FileChannel ch, long offset, MemorySegment into)
      throws IOException {
    CRC32C crc = new CRC32C();
    long ones = 0;
    long size = into.byteSize();
    for (long at = 0; at < size; at += CHUNK) {
      int n = (int) Math.min(CHUNK, size - at);
      ByteBuffer chunk = into.asSlice(at, n).asByteBuffer();
      while (chunk.hasRemaining()) {
        if (ch.read(chunk, offset + at + chunk.position()) < 0) {
          throw new FilterFileException(
              file,
              "the file shrank while being read: it ends at byte "
                  + (offset + at + chunk.position())
                  + ", its header says "
                  + (offset + size));
        }
      }
      chunk.flip();
      crc.update(chunk);
      ones += bitCount(into, at, n);
    }
    return new VerifiedCopy((int) crc.getValue(), ones);
  }

  /** Set bits of {@code s[at, at + n)}; n is a multiple of 8 (filter data is whole groups). */
  private static long bitCount(MemorySegment s, long at, int n) {
    long ones = 0;
    long end = at + (n & ~7L);
    for (long o = at; o < end; o += Long.BYTES) {
      ones += Long.bitCount(s.get(ValueLayout.JAVA_LONG_UNALIGNED, o));
    }
    for (long o = end; o < at + n; o++) {
      ones += Integer.bitCount(s.get(ValueLayout.JAVA_BYTE, o) & 0xFF);
    }
    return ones;
  }
}
