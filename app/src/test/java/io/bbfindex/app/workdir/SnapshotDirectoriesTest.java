package io.bbfindex.app.workdir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claimed directories in one JVM (across processes: {@code ServeFollowCrashTest} kills real
 * serves).
 */
class SnapshotDirectoriesTest {

  @TempDir Path work;

  @Test
  void aHeldDirectoryStaysAStaleOneGoesAndNothingElseIsTouched() throws IOException {
    // what a killed process leaves: a claimed directory whose lock nobody holds
    Path stale = Files.createDirectories(work.resolve(SnapshotDirectories.PREFIX + "123"));
    Files.writeString(stale.resolve(SnapshotDirectories.LOCK_FILE), "");
    Files.createDirectories(stale.resolve("node-snapshot-1/blocks-index"));
    Path foreign = Files.createDirectories(work.resolve("node-snapshot-456"));
    try (SnapshotDirectories.Claim live = SnapshotDirectories.claim(work)) {
      assertEquals(List.of(stale), SnapshotDirectories.removeStale(work));
      assertFalse(Files.exists(stale));
      assertTrue(Files.isDirectory(live.dir()), "held by this process");
      assertTrue(Files.isDirectory(foreign), "not a claimed directory: never touched");
      Files.writeString(live.dir().resolve("snapshot-file"), "x");
      live.close();
      assertFalse(Files.exists(live.dir()), "closing deletes it with its contents");
    }
  }
}
