package io.bbfindex.filters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BbfGeometryTest {

  @Test
  void sizesFollowFromTheShape() {
    BbfGeometry g = new BbfGeometry(1024, 8, 64);
    assertEquals(1024L * 8 * 64, g.bitSize());
    assertEquals(64, g.groupBytes());
    assertEquals(512, g.groupBits());
    assertEquals(1024L * 64, g.byteSize());
    assertEquals(8, new BbfGeometry(1, 2, 32).groupBytes());
    assertEquals(64, new BbfGeometry(1, 16, 32).groupBytes());
    assertEquals(1L << 38, new BbfGeometry(BbfGeometry.MAX_GROUPS, 8, 64).byteSize());
  }

  @Test
  void everyValidShapeFitsACacheLineAndDividesIt() {
    for (int[] s : TestKeys.shapes()) {
      BbfGeometry g = new BbfGeometry(2, s[0], s[1]);
      assertTrue(g.groupBytes() <= 64 && 64 % g.groupBytes() == 0, g.toString());
      assertTrue(BbfGeometry.isValidShape(s[0], s[1]));
    }
    assertFalse(BbfGeometry.isValidShape(16, 64));
    assertFalse(BbfGeometry.isValidShape(3, 32));
  }

  @Test
  void invalidGeometriesAreRefusedWithTheFieldAndValue() {
    assertEquals(
        "k must be one of 2, 4, 8, 16 for lw = 32: 3",
        assertThrows(IllegalArgumentException.class, () -> new BbfGeometry(8, 3, 32)).getMessage());
    assertEquals(
        "k must be one of 2, 4, 8 for lw = 64: 16",
        assertThrows(IllegalArgumentException.class, () -> new BbfGeometry(8, 16, 64))
            .getMessage());
    assertEquals(
        "wordBits (lw) must be 32 or 64: 16",
        assertThrows(IllegalArgumentException.class, () -> new BbfGeometry(8, 4, 16)).getMessage());
    for (long bad : new long[] {0, -1, BbfGeometry.MAX_GROUPS + 1, Long.MIN_VALUE}) {
      String msg =
          assertThrows(IllegalArgumentException.class, () -> new BbfGeometry(bad, 4, 32))
              .getMessage();
      assertTrue(msg.startsWith("groups (r) must be in [1, 2^32]") && msg.endsWith(": " + bad));
    }
    for (long bad : new long[] {3, 12, BbfGeometry.MAX_GROUPS - 1}) {
      assertEquals(bad, new BbfGeometry(bad, 4, 32).groups(), "any r in format v2");
      String msg =
          assertThrows(IllegalArgumentException.class, () -> BbfGeometry.v1(bad, 4, 32))
              .getMessage();
      assertTrue(msg.startsWith("groups (r) must be a power of two") && msg.endsWith(": " + bad));
    }
  }
}
