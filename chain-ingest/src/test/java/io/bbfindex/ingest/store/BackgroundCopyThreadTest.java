package io.bbfindex.ingest.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The copy thread runs at nice 19 as the kernel reports it, and the calling thread is untouched.
 */
@EnabledOnOs(OS.LINUX)
class BackgroundCopyThreadTest {

  /** Field 19 of /proc/thread-self/stat: the calling thread's nice value. */
  private static int ownNice() throws IOException {
    String stat = Files.readString(Path.of("/proc/thread-self/stat"));
    // the command name (field 2) is in parentheses and may hold spaces: count after its end
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(fields[19 - 3]);
  }

  @Test
  void theCopyThreadRunsAtTheLowestPriorityAndItsCallerKeepsItsOwn() throws Exception {
    int before = ownNice();
    CompletableFuture<Integer> nice = new CompletableFuture<>();
    BackgroundCopyThread.EXECUTOR.execute(
        () -> {
          try {
            nice.complete(ownNice());
          } catch (IOException | RuntimeException e) {
            nice.completeExceptionally(e);
          }
        });
    assertEquals(19, nice.get(10, TimeUnit.SECONDS));
    assertEquals(before, ownNice());
  }
}
