package io.bbfindex.benchmarks.scale;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Drops files from the page cache without root: {@code posix_fadvise(fd, 0, 0,
 * POSIX_FADV_DONTNEED)} on each file (what {@code dd iflag=nocache count=0} and vmtouch's evict
 * do), called through the JDK's foreign function API. The kernel drops the clean pages no process
 * maps; the benchmark calls it between runs, with serve stopped. Dirty pages are written first
 * ({@code fdatasync}), or they would stay.
 */
final class PageCache {

  private static final int O_RDONLY = 0;
  private static final int POSIX_FADV_DONTNEED = 4;
  private static final MethodHandle OPEN;
  private static final MethodHandle FADVISE;
  private static final MethodHandle FDATASYNC;
  private static final MethodHandle CLOSE;

  static {
    Linker linker = Linker.nativeLinker();
    var libc = linker.defaultLookup();
    OPEN =
        linker.downcallHandle(
            libc.find("open").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    FADVISE =
        linker.downcallHandle(
            libc.find("posix_fadvise").orElseThrow(),
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT));
    FDATASYNC =
        linker.downcallHandle(
            libc.find("fdatasync").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    CLOSE =
        linker.downcallHandle(
            libc.find("close").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
  }

  private PageCache() {}

  /** Every regular file under {@code dir} dropped from the page cache; how many. */
  static int evictTree(Path dir) throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.walk(dir)) {
      files = s.filter(Files::isRegularFile).toList();
    }
    for (Path f : files) {
      evict(f);
    }
    return files.size();
  }

  static void evict(Path file) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment name = arena.allocateFrom(file.toString());
      int fd = (int) OPEN.invokeExact(name, O_RDONLY);
      if (fd < 0) {
        throw new IOException("cannot open " + file + " to drop it from the page cache");
      }
      try {
        int synced = (int) FDATASYNC.invokeExact(fd);
        int advised = (int) FADVISE.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED);
        if (synced != 0 || advised != 0) {
          throw new IOException("posix_fadvise(DONTNEED) failed on " + file + ": " + advised);
        }
      } finally {
        int closed = (int) CLOSE.invokeExact(fd);
        assert closed == 0;
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IOException("posix_fadvise on " + file + ": " + t, t);
    }
  }
}
