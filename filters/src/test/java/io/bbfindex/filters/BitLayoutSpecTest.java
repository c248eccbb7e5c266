package io.bbfindex.filters;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.filters.BlockedBloomFilter.Kernel;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Checks both kernels against the bit layout as FORMAT.md states it, re-implemented here from the
 * text with none of the production code (so a change of layout cannot slip through by changing code
 * and oracle together).
 */
class BitLayoutSpecTest {

  private static final long[] SALTS = {0, 0x0123456789ABCDEFL, -1L};

  /** Little-endian u64 of key bytes [off, off + 8). */
  private static long le64(byte[] key, int off) {
    long v = 0;
    for (int b = 7; b >= 0; b--) {
      v = (v << 8) | (key[off + b] & 0xFF);
    }
    return v;
  }

  private static long fmix64(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  /** L0, L1, L2 per FORMAT.md. */
  private static long[] lanes(byte[] key, int off, long salt) {
    long[] lanes = new long[3];
    for (int i = 0; i < 3; i++) {
      long raw = le64(key, off + 8 * i);
      lanes[i] = salt == 0 ? raw : fmix64(raw ^ fmix64(salt + (i + 1) * 0x9E3779B97F4A7C15L));
    }
    return lanes;
  }

  /** Absolute bit indices (byte * 8 + bit) the spec says {@code key} sets. */
  static List<Long> specBits(byte[] key, int off, BbfGeometry g, long salt) {
    long[] l = lanes(key, off, salt);
    long h = l[2] & 0xFFFFFFFFL; // the group bits: bits 0..31 of L2
    long group =
        g.indexing() == BbfGeometry.Indexing.MASK
            ? h & (g.groups() - 1)
            : java.math.BigInteger.valueOf(h)
                .multiply(java.math.BigInteger.valueOf(g.groups()))
                .shiftRight(32)
                .longValueExact(); // floor(h * r / 2^32), in exact arithmetic
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < g.k(); i++) {
      int p = (int) ((l[i / 8] >>> (8 * (i % 8))) & 0xFF);
      int bit = p & (g.wordBits() - 1);
      long wordStartByte = group * g.groupBytes() + (long) i * g.wordBits() / 8;
      out.add(wordStartByte * 8 + bit);
    }
    return out;
  }

  private static BitSet setBits(MemorySegment bits) {
    BitSet set = new BitSet();
    for (long i = 0; i < bits.byteSize(); i++) {
      int b = bits.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
      for (int j = 0; j < 8; j++) {
        if ((b & (1 << j)) != 0) {
          set.set((int) (i * 8 + j));
        }
      }
    }
    return set;
  }

  private static List<Kernel> kernels() {
    List<Kernel> ks = new ArrayList<>();
    for (Kernel k : Kernel.values()) {
      if (BlockedBloomFilter.isKernelAvailable(k)) {
        ks.add(k);
      }
    }
    return ks;
  }

  @Test
  void everyKernelSetsExactlyTheSpecifiedBits() {
    byte[] keys = TestKeys.concat(TestKeys.random(11, 300), TestKeys.adversarial(12));
    for (int[] shape : TestKeys.shapes()) {
      for (BbfGeometry g :
          new BbfGeometry[] {
            new BbfGeometry(1, shape[0], shape[1]),
            new BbfGeometry(3, shape[0], shape[1]),
            new BbfGeometry(16, shape[0], shape[1]),
            new BbfGeometry(1000, shape[0], shape[1]),
            BbfGeometry.v1(2, shape[0], shape[1]),
            BbfGeometry.v1(1024, shape[0], shape[1])
          }) {
        for (long salt : SALTS) {
          BitSet expected = new BitSet();
          for (int i = 0; i < TestKeys.count(keys); i++) {
            for (long bit : specBits(keys, i * 32, g, salt)) {
              expected.set((int) bit);
            }
          }
          for (Kernel kernel : kernels()) {
            try (BlockedBloomFilter f = BlockedBloomFilter.create(g, salt, kernel)) {
              for (int i = 0; i < TestKeys.count(keys); i++) {
                f.add(keys, i * 32);
              }
              assertEquals(expected, setBits(f.bits()), g + " salt=" + salt + " kernel=" + kernel);
            }
          }
        }
      }
    }
  }

  @Test
  void oneKeySetsOneBitInEachWordOfOneGroup() {
    byte[] keys = TestKeys.random(13, 40);
    for (int[] shape : TestKeys.shapes()) {
      BbfGeometry g = new BbfGeometry(64, shape[0], shape[1]);
      for (Kernel kernel : kernels()) {
        for (int i = 0; i < TestKeys.count(keys); i++) {
          try (BlockedBloomFilter f = BlockedBloomFilter.create(g, 0, kernel)) {
            f.add(keys, i * 32);
            BitSet set = setBits(f.bits());
            assertEquals(g.k(), set.cardinality(), g + " " + kernel);
            long group = set.nextSetBit(0) / g.groupBits();
            for (int w = 0; w < g.k(); w++) {
              int from = (int) (group * g.groupBits() + (long) w * g.wordBits());
              assertEquals(1, set.get(from, from + g.wordBits()).cardinality(), "word " + w);
            }
          }
        }
      }
    }
  }

  /**
   * Format v2's group for one key by hand: group bits h = 0x80000000 (key byte 19 = 0x80, the
   * fraction 1/2) in r = 7 groups is floor(7 / 2) = 3; h = 0xFFFFFFFF is the last group, 6.
   */
  @Test
  void handWorkedMultiplyShiftGroup() {
    byte[] key = new byte[32];
    key[0] = 5; // word 0: bit 5
    key[19] = (byte) 0x80;
    byte[] last = key.clone();
    java.util.Arrays.fill(last, 16, 20, (byte) 0xFF);
    for (Kernel kernel : kernels()) {
      try (BlockedBloomFilter f = BlockedBloomFilter.create(new BbfGeometry(7, 2, 32), 0, kernel);
          BlockedBloomFilter g = BlockedBloomFilter.create(new BbfGeometry(7, 2, 32), 0, kernel)) {
        f.add(key, 0);
        g.add(last, 0);
        BitSet expected = new BitSet();
        expected.set(3 * 64 + 5); // group 3 of 8-byte groups, word 0 bit 5
        expected.set(3 * 64 + 32); // word 1 bit 0 (key byte 1 = 0)
        assertEquals(expected, setBits(f.bits()), kernel.toString());
        BitSet expectedLast = new BitSet();
        expectedLast.set(6 * 64 + 5);
        expectedLast.set(6 * 64 + 32);
        assertEquals(expectedLast, setBits(g.bits()), kernel.toString());
      }
    }
  }

  /** The layout written out by hand for one key (FORMAT.md's example, in effect): format v1. */
  @Test
  void handWorkedExample() {
    byte[] key = new byte[32];
    key[0] = 5; // word 0: bit 5
    key[1] = 37; // word 1: 37 & 31 = 5 (lw 32), 37 (lw 64)
    key[2] = (byte) 0xFF; // word 2: bit 31 (lw 32), 63 (lw 64)
    key[3] = 64; // word 3: bit 0 for both
    key[16] = 3; // group 3 (r >= 4)
    key[24] = (byte) 0xFF; // bytes 24..31 are never read
    key[31] = 0x7F;
    for (Kernel kernel : kernels()) {
      try (BlockedBloomFilter f = BlockedBloomFilter.create(BbfGeometry.v1(8, 4, 32), 0, kernel)) {
        f.add(key, 0);
        BitSet expected = new BitSet();
        expected.set(48 * 8 + 5); // group 3 at byte 48, word 0 bit 5
        expected.set(52 * 8 + 5); // word 1 at byte 52, bit 5
        expected.set(56 * 8 + 31); // word 2 at byte 56, bit 31 (byte 59 bit 7)
        expected.set(60 * 8); // word 3 at byte 60, bit 0
        assertEquals(expected, setBits(f.bits()), kernel.toString());
      }
      try (BlockedBloomFilter f = BlockedBloomFilter.create(BbfGeometry.v1(8, 4, 64), 0, kernel)) {
        f.add(key, 0);
        BitSet expected = new BitSet();
        expected.set(96 * 8 + 5); // group 3 at byte 96
        expected.set(104 * 8 + 37);
        expected.set(112 * 8 + 63);
        expected.set(120 * 8);
        assertEquals(expected, setBits(f.bits()), kernel.toString());
      }
    }
  }

  /** Bytes 24..31 are never read; unsalted, bytes 20..23 neither (L2's high half is unused). */
  @Test
  void bytesTwentyFourToThirtyOneAreNeverRead() {
    byte[] keys = TestKeys.random(14, 500);
    for (long salt : SALTS) {
      int from = salt == 0 ? 20 : 24;
      byte[] zeroTail = keys.clone();
      for (int i = 0; i < TestKeys.count(keys); i++) {
        java.util.Arrays.fill(zeroTail, i * 32 + from, i * 32 + 32, (byte) 0);
      }
      for (BbfGeometry g :
          new BbfGeometry[] {new BbfGeometry(251, 16, 32), BbfGeometry.v1(256, 16, 32)}) {
        try (BlockedBloomFilter a = BlockedBloomFilter.create(g, salt);
            BlockedBloomFilter b = BlockedBloomFilter.create(g, salt)) {
          for (int i = 0; i < TestKeys.count(keys); i++) {
            a.add(keys, i * 32);
            b.add(zeroTail, i * 32);
          }
          assertEquals(-1, a.bits().mismatch(b.bits()), g + " salt=" + salt);
        }
      }
    }
  }
}
