package io.bbfindex.filters.io;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * One pass that copies a file's data section into memory and, chunk by chunk while the chunk is
 * still in cache, computes its CRC32C and counts its set bits: reading, verifying and describing a
 * filter cost one pass over its bytes instead of three.
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
   * Fills {@code into} with the file's bytes from {@code offset} on. With more than one core, a
   * helper thread reads chunks ahead while this one reads the chunks the helper has not claimed and
   * checksums every chunk in order: the page faults and copies of a large filter (most of the time)
   * are spread over two cores, the CRC32C stays one sequential pass.
   *
   * @throws FilterFileException if the file ends before {@code into} is full (it shrank since its
   *     size was checked)
   */
  static VerifiedCopy of(Path file, FileChannel ch, long offset, MemorySegment into)
      throws IOException {
    int chunks = (int) ((into.byteSize() + CHUNK - 1) / CHUNK);
    Chunks work = new Chunks(file, ch, offset, into, chunks);
    Thread helper = null;
    if (chunks > 2 && Runtime.getRuntime().availableProcessors() > 1) {
      helper = Thread.ofPlatform().name("bbf-filter-read").daemon().start(work::readAhead);
    }
    CRC32C crc = new CRC32C();
    long ones = 0;
    try {
      for (int i = 0; i < chunks; i++) {
        work.awaitRead(i);
        long at = (long) i * CHUNK;
        int n = (int) Math.min(CHUNK, into.byteSize() - at);
        crc.update(into.asSlice(at, n).asByteBuffer());
        ones += bitCount(into, at, n);
      }
    } finally {
      work.stop();
      if (helper != null) {
        joinUninterruptibly(helper);
      }
    }
    return new VerifiedCopy((int) crc.getValue(), ones);
  }

  /**
   * Waits for the read-ahead helper even when this thread is interrupted: the caller frees {@code
   * into} as soon as this returns or throws, and freeing memory a read still writes into fails
   * ("Session is acquired by 1 clients", seen when a store was closed during its background copy).
   * The wait is short: the helper stops after its current chunk, and an interrupt of a read closes
   * the channel, which ends the helper's read too.
   */
  private static void joinUninterruptibly(Thread helper) {
    boolean interrupted = false;
    while (true) {
      try {
        helper.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The CRC32C and set bits of bytes already in memory (a verified mapping), chunk by chunk while
   * each chunk is in cache: describing the filter then costs no second pass over 1.75 GiB.
   */
  static VerifiedCopy of(MemorySegment data) {
    CRC32C crc = new CRC32C();
    long ones = 0;
    for (long at = 0; at < data.byteSize(); at += CHUNK) {
      int n = (int) Math.min(CHUNK, data.byteSize() - at);
      crc.update(data.asSlice(at, n).asByteBuffer());
      ones += bitCount(data, at, n);
    }
    return new VerifiedCopy((int) crc.getValue(), ones);
  }

  /** The chunks of one copy: each read once, by whichever thread claims it first. */
  private static final class Chunks {
    private static final int UNCLAIMED = 0;
    private static final int CLAIMED = 1;
    private static final int READ = 2;

    private final Path file;
    private final FileChannel ch;
    private final long offset;
    private final MemorySegment into;
    private final AtomicIntegerArray state;
    private volatile boolean stopped;
    private @Nullable IOException failure;

    Chunks(Path file, FileChannel ch, long offset, MemorySegment into, int chunks) {
      this.file = file;
      this.ch = ch;
      this.offset = offset;
      this.into = into;
      this.state = new AtomicIntegerArray(chunks);
    }

    /** The helper: reads every chunk it can claim, in order, until all are claimed or stopped. */
    void readAhead() {
      for (int i = 0; i < state.length() && !stopped; i++) {
        if (state.compareAndSet(i, UNCLAIMED, CLAIMED)) {
          try {
            read(i);
          } catch (IOException e) {
            synchronized (this) {
              failure = e;
            }
          }
          synchronized (this) {
            state.set(i, READ);
            notifyAll();
          }
        }
      }
    }

    /** Returns once chunk {@code i} is read: by this thread if the helper has not claimed it. */
    void awaitRead(int i) throws IOException {
      if (state.compareAndSet(i, UNCLAIMED, CLAIMED)) {
        read(i);
        state.set(i, READ);
        return;
      }
      synchronized (this) {
        while (state.get(i) != READ && failure == null) {
          try {
            wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading " + file);
          }
        }
        if (failure != null) {
          throw failure;
        }
      }
    }

    void stop() {
      stopped = true;
    }

    private void read(int i) throws IOException {
      long at = (long) i * CHUNK;
      int n = (int) Math.min(CHUNK, into.byteSize() - at);
      ByteBuffer chunk = into.asSlice(at, n).asByteBuffer();
      while (chunk.hasRemaining()) {
        if (ch.read(chunk, offset + at + chunk.position()) < 0) {
          throw new FilterFileException(
              file,
              "the file shrank while being read: it ends at byte "
                  + (offset + at + chunk.position())
                  + ", its header says "
                  + (offset + into.byteSize()));
        }
      }
    }
  }

  /**
   * Set bits of {@code s[at, at + n)}; n is a multiple of 8 (filter data is whole groups). Four
   * words a step into four sums: about twice the speed of one sum (44-55 vs 85-112 ms a GiB once
   * compiled, on the development VM), which the start-up of a 1.84 GB summary waits for.
   */
  private static long bitCount(MemorySegment s, long at, int n) {
    long a = 0;
    long b = 0;
    long c = 0;
    long d = 0;
    long end4 = at + (n & ~31L);
    for (long o = at; o < end4; o += 4 * Long.BYTES) {
      a += Long.bitCount(s.get(ValueLayout.JAVA_LONG_UNALIGNED, o));
      b += Long.bitCount(s.get(ValueLayout.JAVA_LONG_UNALIGNED, o + 8));
      c += Long.bitCount(s.get(ValueLayout.JAVA_LONG_UNALIGNED, o + 16));
      d += Long.bitCount(s.get(ValueLayout.JAVA_LONG_UNALIGNED, o + 24));
    }
    long ones = a + b + c + d;
    long end = at + (n & ~7L);
    for (long o = end4; o < end; o += Long.BYTES) {
      ones += Long.bitCount(s.get(ValueLayout.JAVA_LONG_UNALIGNED, o));
    }
    for (long o = end; o < at + n; o++) {
      ones += Integer.bitCount(s.get(ValueLayout.JAVA_BYTE, o) & 0xFF);
    }
    return ones;
  }
}
