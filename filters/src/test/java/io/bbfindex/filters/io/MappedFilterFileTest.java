package io.bbfindex.filters.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.TestKeys;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FilterFile#map}: the verified mapping answers as the filter written, and its copy is made
 * from the very file that was verified: equal to what {@link FilterFile#read} makes, refused if the
 * file's bits changed or it shrank since, and unaffected by another file renamed over its path.
 */
class MappedFilterFileTest {

  private static final BbfGeometry GEOMETRY = new BbfGeometry(150_001, 8, 64); // 9.6 MB

  @TempDir Path dir;

  private final byte[] members = TestKeys.random(51, 200_000);
  private final byte[] probes = TestKeys.concat(TestKeys.random(52, 50_000), members);
  private final int probeCount = TestKeys.count(probes);

  private boolean[] written(Path file, long salt, byte[] keys) throws IOException {
    try (BlockedBloomFilter f = FilterFiles.filter(GEOMETRY, salt, keys)) {
      FilterFile.write(file, f, FilterFiles.META);
      boolean[] expected = new boolean[probeCount];
      f.mightContainBatch(probes, probeCount, expected);
      return expected;
    }
  }

  private boolean[] answers(BlockedBloomFilter f) {
    boolean[] out = new boolean[probeCount];
    for (int i = 0; i < probeCount; i++) {
      out[i] = f.mightContain(probes, i * 32);
    }
    return out;
  }

  @Test
  void theMappingAndItsCopyAnswerAsTheFilterWrittenAndTheCopyIsWhatReadMakes() throws IOException {
    Path file = dir.resolve("f.bbf");
    boolean[] expected = written(file, 0x5EED, members);
    try (MappedFilterFile mapped = FilterFile.map(file);
        LoadedFilter copy = mapped.copy();
        LoadedFilter read = FilterFile.read(file)) {
      assertArrayEquals(expected, answers(mapped.mapping().filter()));
      assertArrayEquals(expected, answers(copy.filter()));
      assertEquals(read.headerCrc(), copy.headerCrc());
      assertEquals(read.bitCount(), copy.bitCount());
      assertEquals(read.bitCount(), mapped.mapping().bitCount());
      assertTrue(copy.bitCount() > 0);
      assertEquals(read.filter().count(), mapped.mapping().filter().count());
    }
  }

  /**
   * A copy interrupted while its read-ahead helper reads (a store closed during its background
   * copy) fails with the file named, and frees its memory only once the helper is done: before, the
   * interrupt ended the wait for the helper at once and freeing the memory it was reading into
   * threw "Session is acquired by 1 clients" on the copying thread.
   */
  @Test
  void anInterruptedCopyFailsCleanlyWhateverItsHelperIsDoing() throws Exception {
    Path file = dir.resolve("interrupted.bbf"); // 9.6 MB: three chunks, so a helper reads ahead
    written(file, 7, members);
    int failed = 0;
    for (int i = 0; i < 30; i++) {
      try (MappedFilterFile mapped = FilterFile.map(file)) {
        java.util.concurrent.atomic.AtomicReference<Throwable> outcome =
            new java.util.concurrent.atomic.AtomicReference<>();
        Thread copier =
            Thread.ofPlatform()
                .start(
                    () -> {
                      try (LoadedFilter copy = mapped.copy()) {
                        outcome.set(null);
                      } catch (Throwable t) {
                        outcome.set(t);
                      }
                    });
        Thread.sleep(0, (i % 10) * 100_000);
        copier.interrupt();
        copier.join();
        Throwable t = outcome.get();
        if (t != null) {
          failed++;
          assertTrue(t instanceof FilterFileException, "not a FilterFileException: " + t);
          assertTrue(t.getMessage().contains("interrupted.bbf"), t.getMessage());
        }
      }
    }
    System.out.println("interrupted copies that failed (the rest had ended): " + failed + "/30");
  }

  @Test
  void aCopyOfAFileRewrittenInPlaceSinceItWasMappedIsRefused() throws IOException {
    Path file = dir.resolve("rewritten.bbf");
    written(file, 1, members);
    try (MappedFilterFile mapped = FilterFile.map(file)) {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
        byte[] noise = new byte[1 << 20];
        new Random(3).nextBytes(noise);
        ch.write(ByteBuffer.wrap(noise), 1 << 20);
      }
      FilterFileException e = assertThrows(FilterFileException.class, mapped::copy);
      assertTrue(e.getMessage().contains("data checksum mismatch"), e.getMessage());
      assertEquals(file, e.file());
    }
  }

  @Test
  void aCopyOfAFileTruncatedSinceItWasMappedIsRefused() throws IOException {
    Path file = dir.resolve("truncated.bbf");
    written(file, 2, members);
    try (MappedFilterFile mapped = FilterFile.map(file)) {
      try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
        raf.setLength(raf.length() / 2 + 123);
      }
      FilterFileException e = assertThrows(FilterFileException.class, mapped::copy);
      assertTrue(e.getMessage().contains("shrank"), e.getMessage());
    }
  }

  @Test
  void aFileRenamedOverThePathIsNotWhatIsCopied() throws IOException {
    Path file = dir.resolve("renamed-over.bbf");
    boolean[] expected = written(file, 3, members);
    Path other = dir.resolve("other.bbf");
    boolean[] others = written(other, 4, TestKeys.random(53, 200_000));
    try (MappedFilterFile mapped = FilterFile.map(file)) {
      Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      try (LoadedFilter copy = mapped.copy()) {
        assertArrayEquals(expected, answers(copy.filter()));
      }
      assertArrayEquals(expected, answers(mapped.mapping().filter()));
    }
    try (LoadedFilter now = FilterFile.read(file)) {
      assertArrayEquals(others, answers(now.filter()), "the path holds the other file now");
    }
  }

  /**
   * The mapping answers with the scalar kernel: a probe of a file truncated under it fails with
   * HotSpot's InternalError, which its user turns into "no answer", where a compiled Vector API
   * load could take the JVM down. Probed enough times first for C2 to compile the probe.
   */
  @Test
  void aProbeOfATruncatedMappingFailsWithAnErrorNotACrash() throws IOException {
    Path file = dir.resolve("faulting.bbf");
    written(file, 5, members);
    try (MappedFilterFile mapped = FilterFile.map(file)) {
      BlockedBloomFilter f = mapped.mapping().filter();
      long hits = 0;
      for (int round = 0; round < 40; round++) {
        for (int i = 0; i < probeCount; i++) {
          hits += f.mightContain(probes, i * 32) ? 1 : 0;
        }
      }
      assertTrue(hits >= 40L * TestKeys.count(members));
      try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
        raf.setLength(4096);
      }
      assertThrows(
          InternalError.class,
          () -> {
            for (int i = 0; i < probeCount; i++) {
              f.mightContain(probes, i * 32);
            }
          });
    }
  }
}
