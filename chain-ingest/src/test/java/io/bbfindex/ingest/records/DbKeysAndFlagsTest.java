package io.bbfindex.ingest.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.HashKeys;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Key layouts against the examples of BITCOIN-FORMATS.md (taken from Core's source). */
class DbKeysAndFlagsTest {

  private static final HexFormat HEX = HexFormat.of();

  @Test
  void keysMatchCoresLayout() {
    assertEquals(
        "626fe28c0ab6f1b372c1a6a246ae63f74f931e8365e15a089c68d6190000000000",
        HEX.formatHex(
            DbKeys.blockKey(
                HashKeys.fromDisplayHex(
                    "hash", "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"))));
    assertEquals(
        "74982051fd1e4ba744bbbe680e1fee14677ba1a3c3540bf7b1cdb606e857233e0e",
        HEX.formatHex(
            DbKeys.txKey(
                HashKeys.fromDisplayHex(
                    "hash", "0e3e2357e806b6cdb1f70b54c3a3a17b6714ee1f0e68bebb44a74b1efd512098"))));
    assertEquals("6600000000", HEX.formatHex(DbKeys.fileKey(0)));
    assertEquals("6691100000", HEX.formatHex(DbKeys.fileKey(4241)));
    assertEquals(
        "46107072756e6564626c6f636b66696c6573", HEX.formatHex(DbKeys.flagKey("prunedblockfiles")));
    assertEquals("0e006f62667573636174655f6b6579", HEX.formatHex(DbKeys.OBFUSCATE_KEY));
    assertThrows(IllegalArgumentException.class, () -> DbKeys.txKey(new byte[31]));
  }

  @Test
  void flagsAndLastFile() throws CorruptRecordException {
    byte[] key = DbKeys.flagKey("txindex");
    assertTrue(FlagRecords.decodeFlag(key, new byte[] {'1'}));
    assertFalse(FlagRecords.decodeFlag(key, new byte[] {'0'}));
    assertThrows(CorruptRecordException.class, () -> FlagRecords.decodeFlag(key, new byte[] {1}));
    assertThrows(CorruptRecordException.class, () -> FlagRecords.decodeFlag(key, new byte[0]));
    assertThrows(
        CorruptRecordException.class, () -> FlagRecords.decodeFlag(key, new byte[] {'1', '1'}));
    assertEquals(4241, FlagRecords.decodeLastBlockFile(HEX.parseHex("91100000")));
    assertThrows(
        CorruptRecordException.class,
        () -> FlagRecords.decodeLastBlockFile(HEX.parseHex("911000")));
    assertThrows(
        CorruptRecordException.class,
        () -> FlagRecords.decodeLastBlockFile(HEX.parseHex("ffffffff")));
  }
}
