package io.bbfindex.ingest.leveldb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LevelDbSnapshotTest {

  @TempDir Path tmp;

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void coreLdbTablesOpenAsSstAndTheSourceIsUntouched() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("data"));
    Path index = dd.resolve("blocks/index");
    Map<String, String> before = Fixtures.hashTree(index);
    assertTrue(names(index).contains("000005.ldb"));
    Path snap = tmp.resolve("snap");
    try (LevelDbSnapshot db = LevelDbSnapshot.open(index, snap)) {
      // the genesis 'b' key of BITCOIN-FORMATS.md section 2
      byte[] genesisKey =
          HexFormat.of()
              .parseHex("626fe28c0ab6f1b372c1a6a246ae63f74f931e8365e15a089c68d6190000000000");
      assertNotNull(db.get(genesisKey));
      assertNull(db.get(Obfuscation.RECORD_KEY), "Core does not obfuscate blocks/index");
      assertFalse(names(snap).contains("000005.ldb"));
    }
    assertEquals(before, Fixtures.hashTree(index));
    assertFalse(names(index).contains("LOCK"), "LevelDB never ran on the node's directory");
  }

  /**
   * The fixtures keep chainstate/, which Core does obfuscate. Its 'B' record (the best block hash,
   * once de-obfuscated) is the node's own idea of the tip: it must be the tip NodeIndex derives by
   * work from blocks/index alone, for every network's fixture.
   */
  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "MAINNET_LEGACY", "REGTEST_B"})
  void chainstateObfuscationKeyIsAppliedAndItsBestBlockIsTheTipByWork(Archive a)
      throws IOException {
    Path dd = Fixtures.extract(a, tmp.resolve("data"));
    byte[] best;
    try (LevelDbSnapshot db = LevelDbSnapshot.open(dd.resolve("chainstate"), tmp.resolve("snap"))) {
      Obfuscation o = Obfuscation.read(db);
      assertTrue(o.active());
      byte[] raw = db.get(new byte[] {'B'});
      best = o.plain(raw);
      assertEquals(32, best.length);
      assertFalse(java.util.Arrays.equals(raw, best));
    }
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work"))) {
      assertArrayEquals(idx.tipHash(), best);
    }
  }

  @Test
  void obfuscationKeyRecordsAreValidated() throws CorruptRecordException {
    assertFalse(Obfuscation.decode(HexFormat.of().parseHex("080000000000000000")).active());
    assertFalse(Obfuscation.decode(HexFormat.of().parseHex("00")).active());
    Obfuscation o = Obfuscation.decode(HexFormat.of().parseHex("080102030405060708"));
    // Each byte is 9 XOR the key byte at its index modulo 8 (key 01..08).
    assertArrayEquals(
        new byte[] {0x08, 0x0b, 0x0a, 0x0d, 0x0c, 0x0f, 0x0e, 0x01, 0x08},
        o.plain(new byte[] {9, 9, 9, 9, 9, 9, 9, 9, 9}));
    assertThrows(
        CorruptRecordException.class,
        () -> Obfuscation.decode(HexFormat.of().parseHex("0701020304050607")));
    assertThrows(
        CorruptRecordException.class,
        () -> Obfuscation.decode(HexFormat.of().parseHex("08010203")));
  }

  @Test
  void aDirectoryWithoutCurrentIsNotALevelDb() throws IOException {
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    assertThrows(
        LevelDbOpenException.class, () -> LevelDbSnapshot.open(empty, tmp.resolve("snap")));
    Files.writeString(empty.resolve("CURRENT"), "MANIFEST-000009\n");
    LevelDbOpenException e =
        assertThrows(
            LevelDbOpenException.class, () -> LevelDbSnapshot.open(empty, tmp.resolve("snap")));
    assertTrue(e.getMessage().contains("MANIFEST-000009"), e.getMessage());
  }
}
