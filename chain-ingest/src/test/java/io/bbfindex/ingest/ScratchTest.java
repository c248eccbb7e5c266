package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScratchTest {
  @TempDir Path tmp;

  /**
   * What a SIGTERM during the snapshot copy looks like: the shutdown hook deletes the snapshot
   * while the loading thread goes on adding files to it as fast as it can (and re-creating the one
   * directory it copies into, never its parents). A recursive delete in place can lose that race
   * for good (seen in CI: still there after 10 s); the hook must take the tree away from the copier
   * first.
   */
  @Test
  void aSnapshotIsDeletedWhileAThreadKeepsCopyingIntoIt() throws Exception {
    for (int round = 0; round < 20; round++) {
      Path root = Files.createDirectory(tmp.resolve("node-snapshot-" + round));
      Path copyDir = Files.createDirectory(root.resolve("txindex"));
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong written = new AtomicLong();
      CountDownLatch copying = new CountDownLatch(100);
      Thread copier =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      try {
                        if (!Files.isDirectory(copyDir)) {
                          Files.createDirectory(copyDir); // fails once root is gone
                        }
                        Files.write(
                            copyDir.resolve(written.incrementAndGet() + ".sst"), new byte[64]);
                        copying.countDown();
                      } catch (IOException e) {
                        // root deleted under it, as in the real copy: it fails and starts over
                      }
                    }
                  });
      copying.await();
      assertTrue(Scratch.deleteUntilGone(root, Duration.ofSeconds(10)), "round " + round);
      stop.set(true);
      copier.join();
      assertFalse(Files.exists(root), "round " + round + ": re-created after the hook returned");
      try (var left = Files.list(tmp)) {
        assertEquals(List.of(), left.toList(), "round " + round + ": left behind");
      }
    }
  }
}
