package io.bbfindex.ingest.store;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Where a store opened mapped first makes its verified copies by default: a daemon thread that
 * lowers its own scheduling priority to the lowest (nice 19, through the JDK's foreign function
 * API: Java thread priorities do nothing on Linux) before it starts.
 *
 * <p>Why: the copy of a mainnet summary is 1-5 s of CPU, most of it the kernel backing fresh
 * memory, and it starts while the server is still starting (the HTTP stack, the JIT) on a machine
 * that may have two cores. At the lowest priority it takes only what they leave, and yields to the
 * lookups the mappings answer meanwhile; a thread the copy starts inherits the priority (the
 * read-ahead of {@code VerifiedCopy}). Where the call cannot be made (not Linux, no native access)
 * the thread runs at normal priority: the same copy, later or sooner.
 */
final class BackgroundCopyThread {

  /** {@code PRIO_PROCESS}: on Linux, with a thread id, that one thread. */
  private static final int PRIO_PROCESS = 0;

  private static final int LOWEST = 19;

  private static final @Nullable Native NATIVE = Native.lookup();

  private BackgroundCopyThread() {}

  /** Runs each task on a new low-priority daemon thread. */
  static final Executor EXECUTOR =
      task ->
          Thread.ofPlatform()
              .name("bbf-filter-copy")
              .daemon()
              .start(
                  () -> {
                    lowerOwnPriority();
                    task.run();
                  });

  /** Whether the calling thread is now at the lowest priority. */
  static boolean lowerOwnPriority() {
    if (NATIVE == null) {
      return false;
    }
    try {
      int tid = (int) NATIVE.gettid().invokeExact();
      return (int) NATIVE.setpriority().invokeExact(PRIO_PROCESS, tid, LOWEST) == 0;
    } catch (Throwable e) {
      return false; // advice only
    }
  }

  /** The libc calls, where they can be made. */
  private record Native(MethodHandle gettid, MethodHandle setpriority) {
    static @Nullable Native lookup() {
      if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
          || !BackgroundCopyThread.class.getModule().isNativeAccessEnabled()) {
        return null; // without native access the JDK would warn at the first call
      }
      try {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        return new Native(
            linker.downcallHandle(
                libc.find("gettid").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT)),
            linker.downcallHandle(
                libc.find("setpriority").orElseThrow(),
                FunctionDescriptor.of(
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT)));
      } catch (RuntimeException e) {
        return null;
      }
    }
  }
}
