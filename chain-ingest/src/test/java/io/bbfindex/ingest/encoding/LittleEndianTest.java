package io.bbfindex.ingest.encoding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LittleEndianTest {

  @Test
  void readsAsALittleEndianByteBufferDoes() {
    long seed = 11;
    Random random = new Random(seed);
    byte[] b = new byte[64];
    random.nextBytes(b);
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    for (int offset = 0; offset <= b.length - 4; offset++) {
      assertEquals(le.getInt(offset), LittleEndian.int32(b, offset), "seed " + seed);
      assertEquals(
          Integer.toUnsignedLong(le.getInt(offset)),
          LittleEndian.uint32(b, offset),
          "seed " + seed);
    }
  }

  @Test
  void uint32IsNeverNegative() {
    assertEquals(0xFFFF_FFFFL, LittleEndian.uint32(new byte[] {-1, -1, -1, -1}, 0));
    assertEquals(
        0x1d00ffffL, LittleEndian.uint32(new byte[] {(byte) 0xff, (byte) 0xff, 0x00, 0x1d}, 0));
  }

  @Test
  void refusesAReadPastTheEnd() {
    assertThrows(IndexOutOfBoundsException.class, () -> LittleEndian.uint32(new byte[5], 2));
  }
}
