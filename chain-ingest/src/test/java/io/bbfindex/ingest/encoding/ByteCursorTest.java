package io.bbfindex.ingest.encoding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class ByteCursorTest {

  private static final HexFormat HEX = HexFormat.of();

  private static ByteCursor over(String hex) {
    byte[] b = HEX.parseHex(hex);
    return new ByteCursor("test record", HEX.parseHex("74aa")).reset(b, 0, b.length);
  }

  @Test
  void readsLittleEndianIntsAndBytes() throws CorruptRecordException {
    ByteCursor c = over("01000080ffffffff0a0b");
    assertEquals(0x80000001, c.readInt32LE("a"));
    assertEquals(0xFFFF_FFFFL, c.readUint32LE("b"));
    assertArrayEquals(HEX.parseHex("0a0b"), c.readBytes(2, "c"));
    c.expectEnd();
  }

  @Test
  void truncationNamesTheRecordKeyAndField() {
    ByteCursor c = over("0100");
    CorruptRecordException e =
        assertThrows(CorruptRecordException.class, () -> c.readInt32LE("nVersion"));
    assertTrue(e.getMessage().contains("test record"), e.getMessage());
    assertTrue(e.getMessage().contains("74aa"), e.getMessage());
    assertTrue(e.getMessage().contains("nVersion"), e.getMessage());
  }

  @Test
  void hugeLengthsAreRefusedBeforeAnyAllocation() {
    ByteCursor c = over("00");
    // would be a 2 GiB allocation if the length were trusted
    assertThrows(CorruptRecordException.class, () -> c.readBytes(Integer.MAX_VALUE, "script"));
    assertThrows(CorruptRecordException.class, () -> c.readBytes(-1, "script"));
  }

  @Test
  void compactSizeIsCanonicalAndBounded() throws CorruptRecordException {
    assertEquals(252, over("fc").readCompactSize(ByteCursor.MAX_COMPACT_SIZE, "n"));
    assertEquals(253, over("fdfd00").readCompactSize(ByteCursor.MAX_COMPACT_SIZE, "n"));
    assertEquals(0x10000, over("fe00000100").readCompactSize(ByteCursor.MAX_COMPACT_SIZE, "n"));
    // non-canonical: 5 encoded in 3 bytes
    assertThrows(
        CorruptRecordException.class,
        () -> over("fd0500").readCompactSize(ByteCursor.MAX_COMPACT_SIZE, "n"));
    // above MAX_SIZE (32 MiB) and above the caller's bound
    assertThrows(
        CorruptRecordException.class,
        () -> over("fe01000002").readCompactSize(ByteCursor.MAX_COMPACT_SIZE, "n"));
    assertThrows(CorruptRecordException.class, () -> over("09").readCompactSize(8, "n"));
    assertThrows(
        CorruptRecordException.class,
        () -> over("ffffffffffffffffff").readCompactSize(Long.MAX_VALUE, "n"));
    assertThrows(
        CorruptRecordException.class,
        () -> over("fe0100").readCompactSize(ByteCursor.MAX_COMPACT_SIZE, "n"));
  }

  @Test
  void trailingBytesAreCorruption() throws CorruptRecordException {
    ByteCursor c = over("0102");
    c.readUnsignedByte("a");
    assertThrows(CorruptRecordException.class, c::expectEnd);
  }

  @Test
  void resetChecksItsRange() {
    ByteCursor c = new ByteCursor("r", null);
    assertThrows(IndexOutOfBoundsException.class, () -> c.reset(new byte[4], 2, 3));
  }
}
