package io.bbfindex.ingest;

import static org.fusesource.leveldbjni.JniDBFactory.factory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.testing.CoreLevelDbWriter;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths that are not a usable data directory: a {@link DataDirException} naming the path and the
 * fix.
 */
class DataDirErrorsTest {

  @TempDir Path tmp;

  private Path work() {
    return tmp.resolve("work");
  }

  private DataDirException refused(Path datadir) {
    DataDirException e =
        assertThrows(DataDirException.class, () -> NodeIndex.open(datadir, work()));
    System.out.println("refused: " + e.getMessage());
    return e;
  }

  private static void assertMentions(Exception e, String... parts) {
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "message lacks '" + p + "': " + e.getMessage());
    }
  }

  @AfterEach
  void nothingLeftInTheWorkDir() throws IOException {
    if (Files.exists(work())) {
      try (Stream<Path> s = Files.list(work())) {
        assertEquals(0, s.count(), "a refused open leaves no snapshot behind");
      }
    }
  }

  @Test
  void missingDirectory() {
    Path p = tmp.resolve("no-such-dir");
    DataDirException e = refused(p);
    assertEquals(p, e.path());
    assertMentions(e, p.toString(), "does not exist");
  }

  @Test
  void aFileInsteadOfADirectory() throws IOException {
    Path p = Files.writeString(tmp.resolve("bitcoin.conf"), "txindex=1\n");
    assertMentions(refused(p), p.toString(), "not a directory");
  }

  @Test
  void plainEmptyDirectory() throws IOException {
    Path p = Files.createDirectories(tmp.resolve("empty"));
    assertMentions(refused(p), p.toString(), "has no blocks/index", "data directory");
  }

  @Test
  void datadirWithoutBlockIndex() throws IOException {
    Path p = Files.createDirectories(tmp.resolve("dd/blocks"));
    Files.write(p.resolve("blk00000.dat"), new byte[16]);
    assertMentions(refused(p.getParent()), p.getParent().toString(), "has no blocks/index");
  }

  @Test
  void regtestDatadirGivenItsParent() throws IOException {
    Path regtest = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("x"));
    Path parent = regtest.getParent();
    DataDirException e = refused(parent);
    assertMentions(e, parent.toString(), "regtest", "pass " + regtest);
  }

  @Test
  void blocksDirectoryGivenInsteadOfTheDatadir() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("x"));
    DataDirException e = refused(dd.resolve("blocks"));
    assertMentions(e, "blocks directory", "pass its parent " + dd);
  }

  @Test
  void blockIndexThatIsNotALevelDb() throws IOException {
    Path dd = tmp.resolve("dd");
    Files.createDirectories(dd.resolve("blocks/index"));
    Files.writeString(dd.resolve("blocks/index/000001.log"), "garbage");
    assertMentions(refused(dd), "blocks/index", "not a LevelDB");
  }

  @Test
  void levelDbWithoutBlockRecords() throws IOException {
    Path dd = tmp.resolve("dd");
    Path index = Files.createDirectories(dd.resolve("blocks/index"));
    try (DB db = factory.open(index.toFile(), new Options().createIfMissing(true))) {
      db.put(new byte[] {'x', 1}, new byte[] {2});
    }
    assertMentions(refused(dd), index.toString(), "without 'b' block records");
  }

  @Test
  void nodeWithoutTxindex() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("x"));
    NodeIndex.deleteTree(dd.resolve("indexes"));
    assertMentions(refused(dd), dd.toString(), "-txindex=1");
  }

  @Test
  void hashedTxindexWithAMalformedSaltIsRefusedRatherThanMisread() throws IOException {
    // Core >= 32's hashed layout is read (see io.bbfindex.ingest.txindex); a salt it cannot use is
    // refused
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("x"));
    CoreLevelDbWriter.putAll(
        dd.resolve("indexes/txindex"), Map.of(DbKeys.stringKey("txid_hash_salt"), new byte[15]));
    assertMentions(
        refused(dd), "indexes/txindex", "corrupt hashed txindex", "txid_hash_salt", "-reindex");
  }

  @Test
  void corruptLevelDbTable() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("x"));
    Path table = dd.resolve("blocks/index/000005.ldb");
    byte[] b = Files.readAllBytes(table);
    for (int i = 100; i < 200; i++) {
      b[i] ^= 0x5a;
    }
    Files.write(table, b);
    // LevelDB's block checksums catch it while the 'b' records are loaded
    assertMentions(refused(dd), dd.toString());
  }

  /**
   * A second process holding LOCK as bitcoind does (fcntl write lock, which Java's FileChannel.lock
   * takes on Linux): open refuses, naming the LOCK file; allowRunningNode copies anyway.
   */
  @Test
  void aRunningNodeIsRefusedUnlessAllowed() throws Exception {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("x"));
    Path lock = dd.resolve("blocks/index/LOCK");
    Files.createFile(lock);
    Path holder =
        Files.writeString(
            tmp.resolve("HoldLock.java"),
"""
        import java.nio.channels.FileChannel;
        import java.nio.file.Path;
import java.util.Map;
        import java.nio.file.StandardOpenOption;
        public class HoldLock {
          public static void main(String[] a) throws Exception {
            try (FileChannel ch = FileChannel.open(Path.of(a[0]), StandardOpenOption.WRITE);
                 var l = ch.lock()) {
              System.out.println("locked");
              System.out.flush();
              System.in.read();
            }
          }
        }
""");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(java.toString(), holder.toString(), lock.toString())
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("locked", out.readLine());
      DataDirException e = refused(dd);
      assertEquals(lock, e.path());
      assertMentions(e, "running", "Stop bitcoind");
      // the opens that succeed use a work dir of their own: they keep the decoded block index
      // there, and work() must hold nothing after the refusals
      try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work-opened"), true)) {
        assertEquals(599, idx.tipHeight());
      }
    } finally {
      p.getOutputStream().close();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    // released: the same directory opens normally
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work-opened"))) {
      assertEquals(599, idx.tipHeight());
    }
  }
}
