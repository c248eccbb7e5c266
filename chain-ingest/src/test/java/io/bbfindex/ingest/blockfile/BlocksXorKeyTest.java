package io.bbfindex.ingest.blockfile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The word-wise XOR equals Core's byte rule {@code plain[p] ^ key[p % 8]} at every alignment. */
class BlocksXorKeyTest {

  @Test
  void wordWiseXorMatchesTheByteRuleAtEveryOffsetPositionAndLength() {
    byte[] keyBytes = {(byte) 0x9c, 0x11, 0x00, (byte) 0xff, 0x42, 0x07, (byte) 0xa5, 0x3e};
    BlocksXorKey key = BlocksXorKey.of(keyBytes);
    SplittableRandom rnd = new SplittableRandom(11);
    for (int off = 0; off < 9; off++) {
      for (long filePos : new long[] {0, 1, 7, 8, 13, 134_217_727L, (1L << 33) + 5}) {
        for (int len : new int[] {0, 1, 7, 8, 9, 15, 16, 17, 63, 100}) {
          byte[] plain = new byte[off + len + 3];
          rnd.nextBytes(plain);
          byte[] expected = plain.clone();
          for (int i = 0; i < len; i++) {
            expected[off + i] ^= keyBytes[(int) ((filePos + i) % 8)];
          }
          byte[] actual = plain.clone();
          key.apply(actual, off, len, filePos);
          assertArrayEquals(expected, actual, "off " + off + " filePos " + filePos + " len " + len);
          key.apply(actual, off, len, filePos);
          assertArrayEquals(plain, actual, "XOR twice is the identity");
        }
      }
    }
  }

  @Test
  void anAllZeroKeyIsNoKey() {
    assertFalse(BlocksXorKey.of(new byte[8]).active());
  }
}
