package io.bbfindex.ingest.leveldb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MANIFEST replay against Core's own databases: for every LevelDB of every fixture (block
 * index, txindex, chainstate), the live tables the VersionEdits name are exactly the table files a
 * cleanly stopped node left on disk.
 */
class ManifestReplayTest {

  @TempDir Path tmp;

  static Stream<String> fixtures() throws IOException {
    try (Stream<Path> s = Files.list(Fixtures.dir())) {
      return s
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("core-") && n.endsWith(".tar.gz"))
          .map(n -> n.substring(0, n.length() - ".tar.gz".length()))
          .sorted()
          .toList()
          .stream();
    }
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void theReplayedLiveTablesAreTheTableFilesOnDisk(String fixture) throws IOException {
    Path datadir = Fixtures.extract(fixture, tmp);
    List<Path> databases = databases(datadir);
    assertFalse(databases.isEmpty(), "no LevelDB in " + fixture);
    for (Path db : databases) {
      String manifest = Files.readString(db.resolve("CURRENT")).strip();
      byte[] bytes = Files.readAllBytes(db.resolve(manifest));
      LevelDbLog.Contents edits = LevelDbLog.read(bytes);
      assertEquals(bytes.length, edits.intactLength(), db + ": a stopped node's MANIFEST is whole");
      ManifestReplay.LiveFiles live = ManifestReplay.replay(db.resolve(manifest), edits.records());
      assertEquals(tablesOnDisk(db), live.tables(), db.toString());
      for (ManifestReplay.TableFile t : live.files().values()) {
        Path ldb = db.resolve(String.format("%06d.ldb", t.number()));
        Path table = Files.exists(ldb) ? ldb : db.resolve(String.format("%06d.sst", t.number()));
        assertEquals(Files.size(table), t.fileSize(), table.toString());
        assertTrue(t.level() >= 0 && t.level() < 7, table + " level " + t.level());
        byte[] smallestUser = Arrays.copyOf(t.smallest(), t.smallest().length - 8);
        assertTrue(t.covers(smallestUser), table + ": smallest <= largest");
      }
      assertTrue(
          Files.exists(db.resolve(String.format("%06d.log", live.logNumber()))),
          db + ": the log to replay, " + live.logNumber());
    }
  }

  @Test
  void aLiveTableThatVanishedBeforeItWasLinkedMakesTheCopyStartOverNotOpenWithoutIt()
      throws IOException {
    Path datadir = Fixtures.extract(Fixtures.Archive.MAINNET_LDB, tmp.resolve("data"));
    Path index = datadir.resolve("blocks/index");
    SortedSet<Long> tables = tablesOnDisk(index);
    assertFalse(tables.isEmpty());
    // as a compaction does: the table is gone, the MANIFEST read before still names it
    Files.delete(index.resolve(String.format("%06d.ldb", tables.first())));
    assertThrows(
        NoSuchFileException.class, () -> LevelDbSnapshot.open(index, tmp.resolve("snap")).close());
  }

  @Test
  void anUnknownVersionEditTagIsReportedAsACorruptManifest() {
    byte[] edit = {42, 1};
    LevelDbOpenException e =
        assertThrows(
            LevelDbOpenException.class,
            () -> ManifestReplay.replay(Path.of("MANIFEST-000001"), List.of(edit)));
    assertTrue(e.getMessage().contains("unknown VersionEdit tag 42"), e.getMessage());
  }

  /** Every directory holding a LevelDB (a CURRENT file) under {@code datadir}. */
  static List<Path> databases(Path datadir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(datadir)) {
      s.filter(p -> p.getFileName().toString().equals("CURRENT"))
          .forEach(p -> out.add(p.getParent()));
    }
    return out;
  }

  static SortedSet<Long> tablesOnDisk(Path db) throws IOException {
    SortedSet<Long> out = new TreeSet<>();
    try (Stream<Path> s = Files.list(db)) {
      s.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d+\\.(ldb|sst)"))
          .forEach(n -> out.add(Long.parseLong(n.substring(0, n.indexOf('.')))));
    }
    return out;
  }
}
