package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #15 D4: an {@code ingest} killed ({@code kill -9}) or stopped by SIGTERM in a real child
 * JVM. SIGTERM: its shutdown hook removes its snapshot and temporary files. kill -9: nothing runs,
 * so the next run removes the stale snapshot (its owner lock is free) and the orphan temporary
 * files, but never the snapshot of a run still alive.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KilledIngestTest {
  @TempDir static Path tmp;
  private Path datadir;

  @BeforeAll
  void fixture() throws IOException {
    datadir = Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("data"));
  }

  private Process ingest(Path out, Path work) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    return new ProcessBuilder(
            java.toString(),
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "-cp",
            System.getProperty("java.class.path"),
            "io.bbfindex.app.Main",
            "ingest",
            "--datadir",
            datadir.toString(),
            "--out",
            out.toString(),
            "--work",
            work.toString())
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  private static List<Path> snapshots(Path work) throws IOException {
    if (!Files.isDirectory(work)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(work)) {
      return s.filter(p -> p.getFileName().toString().startsWith("node-snapshot-")).toList();
    }
  }

  private static List<Path> tempFiles(Path store) throws IOException {
    if (!Files.isDirectory(store)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(store)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
    }
  }

  /** Waits until the child's snapshot is being filled (its LevelDB copies have started). */
  private static Path awaitSnapshot(Process p, Path work) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    while (System.nanoTime() < deadline && p.isAlive()) {
      for (Path s : snapshots(work)) {
        if (Files.isDirectory(s.resolve("blocks-index"))) {
          return s;
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the ingest never made its snapshot (alive: " + p.isAlive() + ")");
  }

  @Test
  void aSigtermedIngestRemovesItsSnapshotAndTemporaryFiles() throws Exception {
    Path out = tmp.resolve("term-filters");
    Path work = tmp.resolve("term-work");
    Process p = ingest(out, work);
    awaitSnapshot(p, work);
    p.destroy(); // SIGTERM
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the ingest stops on SIGTERM");
    assertEquals(List.of(), snapshots(work), "no snapshot left behind by a SIGTERMed ingest");
    assertEquals(List.of(), tempFiles(out), "no temporary filter file left behind");
  }

  @Test
  void theNextRunRemovesWhatAKilledIngestLeftButNotALiveRunsSnapshot() throws Exception {
    Path out = tmp.resolve("kill-filters");
    Path work = tmp.resolve("kill-work");
    Process p = ingest(out, work);
    Path leaked = awaitSnapshot(p, work);
    p.destroyForcibly(); // SIGKILL: no hook runs
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertTrue(Files.isDirectory(leaked), "kill -9 leaves its snapshot: " + leaked);
    // what an interrupted AtomicFileWriter leaves: .<target>.<random>.tmp
    Files.createDirectories(out);
    Path orphan = Files.write(out.resolve(".tx-summary.bbf.0123456789abcdef.tmp"), new byte[4096]);

    // a live run (this JVM) holds its own snapshot in the same work directory meanwhile
    try (NodeIndex live = NodeIndex.open(datadir, work)) {
      List<Path> liveSnapshots = snapshots(work).stream().filter(s -> !s.equals(leaked)).toList();
      assertEquals(1, liveSnapshots.size(), "the live run's snapshot: " + snapshots(work));
      Process next = ingest(out, work);
      assertTrue(next.waitFor(120, TimeUnit.SECONDS), "the next ingest finishes");
      assertEquals(0, next.exitValue(), "the next ingest succeeds");
      assertFalse(Files.exists(leaked), "the killed run's snapshot is removed: " + leaked);
      assertFalse(Files.exists(orphan), "the orphan temporary file is removed");
      assertEquals(List.of(), tempFiles(out));
      assertEquals(liveSnapshots, snapshots(work), "the live run's snapshot is kept");
      assertTrue(live.tipHeight() > 0, "and still usable");
    }
    assertEquals(List.of(), snapshots(work), "the live run removes its own on close");
  }
}
