package io.bbfindex.filters.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one atomic writer behind every persisted file: a write replaces the whole file; a failure at
 * any step before the rename leaves the old file byte for byte and no temporary file behind.
 */
class AtomicFileWriterTest {

  @TempDir Path dir;

  private static final byte[] OLD = "the old content\n".getBytes(StandardCharsets.UTF_8);

  /** Names in {@code dir}, temporaries included (they start with a dot). */
  private List<String> listing() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aWriteReplacesTheWholeFileAndLeavesOnlyIt() throws IOException {
    Path file = dir.resolve("f.txt");
    AtomicFileWriter.write(file, OLD);
    byte[] shorter = "new\n".getBytes(StandardCharsets.UTF_8);
    AtomicFileWriter.write(file, shorter);
    assertArrayEquals(shorter, Files.readAllBytes(file), "no tail of the longer old content");
    assertEquals(List.of("f.txt"), listing());
  }

  @Test
  void aFailureWhileWritingLeavesTheOldFileAndNoTemporary() throws IOException {
    Path file = dir.resolve("f.txt");
    AtomicFileWriter.write(file, OLD);
    IOException boom = new IOException("disk full (simulated)");
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                AtomicFileWriter.write(
                    file,
                    ch -> {
                      AtomicFileWriter.writeFully(ch, ByteBuffer.wrap(new byte[4096]));
                      throw boom;
                    }));
    // issue #15 D6: the channel's "No space left on device" alone names no file
    assertSame(boom, e.getCause(), "the failure is kept as the cause");
    assertTrue(e.getMessage().contains(file.toString()), "names the file: " + e.getMessage());
    assertArrayEquals(OLD, Files.readAllBytes(file));
    assertEquals(List.of("f.txt"), listing());
  }

  @Test
  void aRuntimeFailureInTheContentAlsoLeavesNoTemporary() throws IOException {
    Path file = dir.resolve("f.txt");
    AtomicFileWriter.write(file, OLD);
    assertThrows(
        IllegalStateException.class,
        () ->
            AtomicFileWriter.write(
                file,
                ch -> {
                  throw new IllegalStateException("bug in the content");
                }));
    assertArrayEquals(OLD, Files.readAllBytes(file));
    assertEquals(List.of("f.txt"), listing());
  }

  /** The rename fails (the target is a non-empty directory): the temporary file is removed. */
  @Test
  void aFailedRenameLeavesTheTargetAndNoTemporary() throws IOException {
    Path target = dir.resolve("taken");
    Files.createDirectory(target);
    Files.write(target.resolve("inside.txt"), OLD);
    assertThrows(IOException.class, () -> AtomicFileWriter.write(target, OLD));
    assertArrayEquals(OLD, Files.readAllBytes(target.resolve("inside.txt")));
    assertEquals(List.of("taken"), listing());
  }

  @Test
  void aMissingDirectoryIsAnError() {
    assertThrows(
        IOException.class,
        () -> AtomicFileWriter.write(dir.resolve("no-such-dir").resolve("f"), OLD));
  }

  /** Writers of one target each use their own temporary file: the result is one whole content. */
  @Test
  void concurrentWritersNeverMixTheirContent() throws Exception {
    Path file = dir.resolve("f.txt");
    List<byte[]> contents = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      byte[] c = new byte[64 * 1024];
      java.util.Arrays.fill(c, (byte) ('a' + i));
      contents.add(c);
    }
    try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
      for (int round = 0; round < 5; round++) {
        List<Future<?>> done = new ArrayList<>();
        for (byte[] c : contents) {
          done.add(
              pool.submit(
                  () -> {
                    AtomicFileWriter.write(file, c);
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
        byte[] now = Files.readAllBytes(file);
        assertEquals(
            1,
            contents.stream().filter(c -> java.util.Arrays.equals(c, now)).count(),
            "the file is exactly one writer's content");
      }
    }
    assertEquals(List.of("f.txt"), listing());
  }
}
