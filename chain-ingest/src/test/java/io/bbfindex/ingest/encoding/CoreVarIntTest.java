package io.bbfindex.ingest.encoding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CoreVarIntTest {

  private static final HexFormat HEX = HexFormat.of();

  /**
   * The vectors of the comment above WriteVarInt in Core's serialize.h, plus the DUMMY_VERSION one.
   */
  @ParameterizedTest(name = "{0} <-> {1}")
  @CsvSource({
    "0, 00",
    "1, 01",
    "127, 7f",
    "128, 8000",
    "255, 807f",
    "256, 8100",
    "16383, fe7f",
    "16384, ff00",
    "16511, ff7f",
    "65535, 82fe7f",
    "4294967296, 8efefeff00",
    "259900, 8eed3c",
  })
  void coreVectorsBothDirections(long value, String hex) throws CorruptRecordException {
    assertArrayEquals(HEX.parseHex(hex), CoreVarInt.encode(value));
    assertEquals(value, CoreVarInt.decode(HEX.parseHex(hex), CoreVarInt.MAX_INT64));
  }

  @Test
  void roundTripsSeededValuesOfEveryMagnitude() throws CorruptRecordException {
    long seed = 42;
    Random rnd = new Random(seed);
    for (int i = 0; i < 100_000; i++) {
      long v = (rnd.nextLong() >>> 1) >>> rnd.nextInt(63);
      byte[] enc = CoreVarInt.encode(v);
      assertTrue(enc.length <= CoreVarInt.MAX_BYTES);
      assertEquals(v, CoreVarInt.decode(enc, CoreVarInt.MAX_INT64), "seed " + seed + " value " + v);
    }
    assertEquals(
        Long.MAX_VALUE, CoreVarInt.decode(CoreVarInt.encode(Long.MAX_VALUE), CoreVarInt.MAX_INT64));
  }

  @Test
  void fieldBoundsAreEnforcedAtTheirExactEdge() throws CorruptRecordException {
    assertEquals(
        CoreVarInt.MAX_UINT32,
        CoreVarInt.decode(CoreVarInt.encode(CoreVarInt.MAX_UINT32), CoreVarInt.MAX_UINT32));
    assertEquals(
        CoreVarInt.MAX_INT32,
        CoreVarInt.decode(CoreVarInt.encode(CoreVarInt.MAX_INT32), CoreVarInt.MAX_INT32));
    assertThrows(
        CorruptRecordException.class,
        () -> CoreVarInt.decode(CoreVarInt.encode(CoreVarInt.MAX_INT32 + 1), CoreVarInt.MAX_INT32));
    assertThrows(
        CorruptRecordException.class,
        () ->
            CoreVarInt.decode(CoreVarInt.encode(CoreVarInt.MAX_UINT32 + 1), CoreVarInt.MAX_UINT32));
  }

  @Test
  void overflowIsRejectedBeforeShiftingLikeCore() {
    // ten continuation digits would shift bits out of a long: Core throws "size too large"
    byte[] endless = HEX.parseHex("ffffffffffffffffffff7f");
    CorruptRecordException e =
        assertThrows(
            CorruptRecordException.class, () -> CoreVarInt.decode(endless, CoreVarInt.MAX_INT64));
    assertTrue(e.getMessage().contains("size too large"), e.getMessage());
    // 5 bytes can exceed uint32: 8efefeff00 = 2^32
    assertThrows(
        CorruptRecordException.class,
        () -> CoreVarInt.decode(HEX.parseHex("8efefeff00"), CoreVarInt.MAX_UINT32));
  }

  @Test
  void truncationAndTrailingBytesAreCorruption() {
    assertThrows(
        CorruptRecordException.class, () -> CoreVarInt.decode(new byte[0], CoreVarInt.MAX_INT64));
    assertThrows(
        CorruptRecordException.class,
        () -> CoreVarInt.decode(HEX.parseHex("8e"), CoreVarInt.MAX_INT64));
    assertThrows(
        CorruptRecordException.class,
        () -> CoreVarInt.decode(HEX.parseHex("8eed"), CoreVarInt.MAX_INT64));
    assertThrows(
        CorruptRecordException.class,
        () -> CoreVarInt.decode(HEX.parseHex("0000"), CoreVarInt.MAX_INT64));
  }

  @Test
  void negativeValuesCannotBeWritten() {
    assertThrows(IllegalArgumentException.class, () -> CoreVarInt.encode(-1));
  }
}
