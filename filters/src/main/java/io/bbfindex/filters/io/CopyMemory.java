package io.bbfindex.filters.io;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Off-heap memory for the in-memory copy of a filter file ({@link FilterFile#read}), 64-byte
 * aligned and freed with its arena.
 *
 * <p>On Linux it is an anonymous mapping advised as transparent huge pages ({@code
 * madvise(MADV_HUGEPAGE)}, through the JDK's foreign function API): filling 1.9 GB of fresh 4 KiB
 * pages cost about 9 s of system time in page faults on the development VM (the kernel zeroes and
 * maps each page at its first write), 2 MiB pages about 0.7 s; {@link Arena#allocate} zeroes all of
 * it in user space first, then faults it in by 4 KiB pages. Elsewhere, or when the module may not
 * call native code, or the mapping fails, it falls back to {@link Arena#allocate} (slower to fill,
 * same bytes).
 */
final class CopyMemory {

  /** Huge page size of x86-64 and arm64 Linux: the mapping is aligned to it. */
  private static final long HUGE_PAGE = 2L << 20;

  private static final int PROT_READ_WRITE = 0x1 | 0x2;
  private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
  private static final int MADV_HUGEPAGE = 14;

  private static final @Nullable Native NATIVE = Native.lookup();

  private CopyMemory() {}

  /**
   * {@code bytes} of memory, 64-byte aligned, owned by {@code arena} (freed when it closes). The
   * content is unspecified until written (zero in practice).
   */
  static MemorySegment allocate(long bytes, Arena arena) {
    if (NATIVE != null && bytes >= HUGE_PAGE) {
      MemorySegment s = NATIVE.hugePages(bytes, arena);
      if (s != null) {
        return s;
      }
    }
    return arena.allocate(Math.max(1, bytes), 64);
  }

  /** The libc calls, where they can be made. */
  private record Native(MethodHandle mmap, MethodHandle madvise, MethodHandle munmap) {

    static @Nullable Native lookup() {
      String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
      String arch = System.getProperty("os.arch", "");
      Module self = CopyMemory.class.getModule();
      if (!os.contains("linux")
          || !(arch.equals("amd64") || arch.equals("aarch64"))
          || !self.isNativeAccessEnabled()) {
        // the flag values above are those of Linux on these two architectures; without native
        // access the JDK would warn at the first call
        return null;
      }
      try {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        return new Native(
            linker.downcallHandle(
                libc.find("mmap").orElseThrow(),
                FunctionDescriptor.of(
                    ValueLayout.ADDRESS,
                    ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG)),
            linker.downcallHandle(
                libc.find("madvise").orElseThrow(),
                FunctionDescriptor.of(
                    ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT)),
            linker.downcallHandle(
                libc.find("munmap").orElseThrow(),
                FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG)));
      } catch (RuntimeException e) {
        return null;
      }
    }

    /** A huge-page-advised anonymous mapping of at least {@code bytes}, or null if mmap fails. */
    @Nullable MemorySegment hugePages(long bytes, Arena arena) {
      long length = bytes + HUGE_PAGE; // room to start the copy on a huge page boundary
      try {
        MemorySegment base =
            (MemorySegment)
                mmap.invokeExact(
                    MemorySegment.NULL, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
        if (base.address() == -1L || base.address() == 0L) {
          return null;
        }
        long start = (base.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
        MemorySegment whole =
            base.reinterpret(
                length, arena, s -> unmap(MemorySegment.ofAddress(s.address()), length));
        MemorySegment copy = whole.asSlice(start - base.address(), bytes);
        // advice only: without it the copy still works, on 4 KiB pages
        int ignored = (int) madvise.invokeExact(copy, bytes, MADV_HUGEPAGE);
        return copy;
      } catch (Throwable e) {
        return null;
      }
    }

    private void unmap(MemorySegment base, long length) {
      try {
        int ignored = (int) munmap.invokeExact(base, length);
      } catch (Throwable e) {
        throw new IllegalStateException("munmap of a filter copy failed", e);
      }
    }
  }
}
