package io.bbfindex.filters;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD kernel (Vector API): a whole group, or 256-bit chunks of it, in a few instructions. Only
 * {@link KernelSelection} names this class, by string, after checking that the {@code
 * jdk.incubator.vector} module is present: nothing else may refer to it.
 *
 * <h2>Per chunk (same bits as {@link ScalarGroupKernel})</h2>
 *
 * <pre>
 *   lw = 64 (LongVector, lane j = word w):  mask_j = 1L &lt;&lt; (L0 &gt;&gt;&gt; 8w)        (shift count mod 64)
 *   lw = 32 (IntVector,  lane j = word w):  mask_j = 1  &lt;&lt; (S(w / 4) &gt;&gt;&gt; 8 (w mod 4)) (mod 32)
 *            where S = (low L0, high L0, low L1, high L1) as ints
 *   insert: chunk = load | mask; store         query: all lanes of (mask &amp; ~chunk) == 0
 * </pre>
 *
 * The per-lane variable shifts are VPSLLVQ/VPSRLVQ and VPSLLVD/VPSRLVD on AVX2. Words are little
 * endian in memory, and the loads and stores say so explicitly, so the array is the same bytes on
 * every platform.
 *
 * <h2>Unsalted keys: position bytes straight from the key</h2>
 *
 * Without a salt, P[i] is key byte i, so {@code testKey}/{@code insertKey} load the chunk's
 * position bytes from the key with one sign-extending load into the lanes (VPMOVSXBD for lw = 32,
 * VPMOVSXBQ for lw = 64: byte w of the 8 loaded goes to lane w; the sign does not matter, the shift
 * count keeps only its low 5 or 6 bits), then shift a vector of ones by them (the shapes of 256
 * bits and more, and lw = 32 in 128-bit chunks; the 64- and 128-bit groups use scalar code or the
 * lane path, see their classes):
 *
 * <pre>
 *   mask  = ONES &lt;&lt; (int) keys[offset + first word .. + lanes]     (VPMOVSX, VPAND, VPSLLV)
 *   test  = all lanes of (mask &amp; group) == mask                      (VPAND, VPCMPEQ, VTESTPS)
 * </pre>
 *
 * about 12 instructions a 256-bit group, no branch, against about twice that for the broadcast and
 * shift of a lane (BatchShapeBenchmark, laneBroadcast vs singlePass). A 512-bit group (two chunks)
 * ANDs both chunks' compare masks and tests once, so a lookup has no data-dependent branch: {@link
 * BlockedBloomFilter#mightContainBatch} relies on that to keep many cache misses in flight.
 *
 * <h2>Species</h2>
 *
 * A chunk is min(group bits, 256, preferred vector bits). Species larger than the preferred one are
 * not intrinsified (they fall back to Java arrays, far slower), and 512-bit vectors would only save
 * one load per 64-byte group while lowering the clock on some AVX-512 parts, so 256 is the ceiling.
 * Groups of 128 bits use the 128-bit species, except lw = 64, k = 2 (two words: two shifts in
 * general-purpose registers, {@code TwoLongs}). A 64-bit group (lw = 32, k = 2) fits one
 * general-purpose register: it is done as one 64-bit OR / AND of both words' bits (SWAR), because
 * the 64-bit species' mask operations are not intrinsified (measured several times slower).
 *
 * <p>Each shape is its own final class whose species are static finals: the Vector API is only
 * intrinsified when C2 sees the species as a constant, and separate classes keep one shape's
 * profile from polluting another's when a JVM uses several geometries (one shared class with a
 * switch measured several times slower in that case).
 *
 * <p>Comparisons here that name no benchmark come from a plain timing loop (1M keys, 2^20-group
 * filters, not kept) on the shared 2-core AVX2 build VM, JDK 25; they show which formulation C2
 * intrinsifies, not throughput figures. Throughput belongs to JMH ({@code bench filters}).
 */
final class VectorGroupKernel {

  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

  /** 8 key bytes, sign-extended into the lanes of a chunk by {@code convertShape}. */
  private static final VectorSpecies<Byte> KEY_BYTES = ByteVector.SPECIES_64;

  /** Widest chunk used: 256 bits, or less when the CPU's preferred vectors are narrower. */
  static final int MAX_CHUNK_BITS = Math.min(256, LongVector.SPECIES_PREFERRED.vectorBitSize());

  /** Word w of an lw = 64 group shifts L0 right by LONG_SHIFTS[w] = 8w. */
  private static final long[] LONG_SHIFTS = {0, 8, 16, 24, 32, 40, 48, 56};

  /** Word w of an lw = 32 group shifts its source int right by INT_SHIFTS[w] = 8 (w mod 4). */
  private static final int[] INT_SHIFTS = {0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24};

  private VectorGroupKernel() {}

  /**
   * Throws when this CPU's vectors are too narrow to help (under 128 bits), so the selector falls
   * back to the scalar kernel. Also forces the Vector API classes to load and link.
   */
  static void checkUsable() {
    if (MAX_CHUNK_BITS < 128) {
      throw new UnsupportedOperationException(
          "preferred vector size is " + MAX_CHUNK_BITS + " bits; the BBF kernel needs 128 or more");
    }
  }

  /** The kernel for the geometry's shape. */
  static GroupKernel create(BbfGeometry geometry) {
    checkUsable();
    int chunkBits = Math.min(geometry.groupBits(), MAX_CHUNK_BITS);
    int chunks = geometry.groupBits() / chunkBits;
    if (geometry.wordBits() == 64) {
      if (geometry.k() == 2) {
        return new TwoLongs();
      }
      return chunkBits == 128 ? new Longs128(chunks) : new Longs256(chunks);
    }
    return switch (chunkBits) {
      case 64 -> new TwoIntsSwar();
      case 128 -> new Ints128(chunks);
      default -> new Ints256(chunks);
    };
  }

  private abstract static class Base implements GroupKernel {
    @Override
    public final BlockedBloomFilter.Kernel kind() {
      return BlockedBloomFilter.Kernel.VECTOR;
    }
  }

  /**
   * Whether a 128-bit vector is all zero. On AVX2, compare + allTrue over a 128-bit mask is not
   * fully intrinsified (measured several times slower than reading the two 64-bit lanes; a 256-bit
   * compare + allTrue is about as fast as that read, so the 256-bit classes keep it).
   */
  private static boolean isZero128(LongVector v) {
    return (v.lane(0) | v.lane(1)) == 0;
  }

  /** Source int q of the lw = 32 layout: low L0, high L0, low L1, high L1. */
  private static int sourceInt(long lane0, long lane1, int q) {
    return (int) ((q < 2 ? lane0 : lane1) >>> ((q & 1) << 5));
  }

  // ---- lw = 64: every position byte comes from L0 (k <= 8) ----

  /**
   * lw = 64, k = 2: the 16-byte group as two longs in general-purpose registers, each word's bit
   * shifted down to bit 0 and the two ANDed. Neither 128-bit formulation wins here: the lane path
   * ran 154 million lookups a second and the scalar kernel 341 (PaperBenchmark, k = 2, in cache,
   * {@code ./bbf-index bench paper} at 04b6832, before this class).
   */
  private static final class TwoLongs extends Base {
    @Override
    public void insert(MemorySegment bits, long at, long lane0, long lane1) {
      bits.set(
          ScalarGroupKernel.LE_LONG, at, bits.get(ScalarGroupKernel.LE_LONG, at) | (1L << lane0));
      bits.set(
          ScalarGroupKernel.LE_LONG,
          at + 8,
          bits.get(ScalarGroupKernel.LE_LONG, at + 8) | (1L << (lane0 >>> 8)));
    }

    @Override
    public boolean test(MemorySegment bits, long at, long lane0, long lane1) {
      long word0 = bits.get(ScalarGroupKernel.LE_LONG, at) >>> lane0;
      long word1 = bits.get(ScalarGroupKernel.LE_LONG, at + 8) >>> (lane0 >>> 8);
      return (word0 & word1 & 1) != 0;
    }
  }

  /** lw = 64 in 128-bit chunks (2 words each). */
  private static final class Longs128 extends Base {
    // No key-bytes entry points here: widening 2 key bytes into 2 long lanes (B2L from the 64-bit
    // byte species to the 128-bit long one) is not intrinsified on AVX2 and measured several
    // times slower (k = 2, lw = 64) than the lane path, which unsalted keys therefore
    // take too (GroupKernel's defaults).
    private static final VectorSpecies<Long> S = LongVector.SPECIES_128;
    private final int chunks;

    Longs128(int chunks) {
      this.chunks = chunks;
    }

    private static LongVector mask(long lane0, int firstWord) {
      LongVector positions =
          LongVector.broadcast(S, lane0)
              .lanewise(VectorOperators.LSHR, LongVector.fromArray(S, LONG_SHIFTS, firstWord));
      return LongVector.broadcast(S, 1L).lanewise(VectorOperators.LSHL, positions);
    }

    @Override
    public void insert(MemorySegment bits, long at, long lane0, long lane1) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        LongVector m = mask(lane0, c * S.length());
        LongVector.fromMemorySegment(S, bits, at, LE).or(m).intoMemorySegment(bits, at, LE);
      }
    }

    @Override
    public boolean test(MemorySegment bits, long at, long lane0, long lane1) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        LongVector m = mask(lane0, c * S.length());
        LongVector missing =
            m.lanewise(VectorOperators.AND_NOT, LongVector.fromMemorySegment(S, bits, at, LE));
        if (!isZero128(missing)) {
          return false;
        }
      }
      return true;
    }
  }

  /** lw = 64 in 256-bit chunks (4 words each): k = 4 is one chunk, k = 8 two. */
  private static final class Longs256 extends Base {
    private static final VectorSpecies<Long> S = LongVector.SPECIES_256;
    private static final LongVector ONES = LongVector.broadcast(S, 1L);
    private final int chunks;

    /** The bits of words 4c .. 4c + 3 from key bytes {@code at .. at + 3}. */
    private static LongVector keyMask(byte[] keys, int at) {
      return ONES.lanewise(
          VectorOperators.LSHL,
          (LongVector)
              ByteVector.fromArray(KEY_BYTES, keys, at).convertShape(VectorOperators.B2L, S, 0));
    }

    @Override
    public void insertKey(MemorySegment bits, long at, byte[] keys, int offset) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        LongVector m = keyMask(keys, offset + c * S.length());
        LongVector.fromMemorySegment(S, bits, at, LE).or(m).intoMemorySegment(bits, at, LE);
      }
    }

    @Override
    public boolean testKey(MemorySegment bits, long at, byte[] keys, int offset) {
      LongVector m0 = keyMask(keys, offset);
      VectorMask<Long> all =
          m0.and(LongVector.fromMemorySegment(S, bits, at, LE)).compare(VectorOperators.EQ, m0);
      if (chunks == 2) {
        LongVector m1 = keyMask(keys, offset + 4);
        all =
            all.and(
                m1.and(LongVector.fromMemorySegment(S, bits, at + 32, LE))
                    .compare(VectorOperators.EQ, m1));
      }
      return all.allTrue();
    }

    Longs256(int chunks) {
      this.chunks = chunks;
    }

    private static LongVector mask(long lane0, int firstWord) {
      LongVector positions =
          LongVector.broadcast(S, lane0)
              .lanewise(VectorOperators.LSHR, LongVector.fromArray(S, LONG_SHIFTS, firstWord));
      return LongVector.broadcast(S, 1L).lanewise(VectorOperators.LSHL, positions);
    }

    @Override
    public void insert(MemorySegment bits, long at, long lane0, long lane1) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        LongVector m = mask(lane0, c * S.length());
        LongVector.fromMemorySegment(S, bits, at, LE).or(m).intoMemorySegment(bits, at, LE);
      }
    }

    @Override
    public boolean test(MemorySegment bits, long at, long lane0, long lane1) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        LongVector m = mask(lane0, c * S.length());
        LongVector missing =
            m.lanewise(VectorOperators.AND_NOT, LongVector.fromMemorySegment(S, bits, at, LE));
        if (!missing.compare(VectorOperators.EQ, 0L).allTrue()) {
          return false;
        }
      }
      return true;
    }
  }

  // ---- lw = 32 ----

  /** lw = 32, k = 2: the 8-byte group as one long, word 0 in the low half. */
  private static final class TwoIntsSwar extends Base {
    private static long mask(long lane0) {
      return (1L << (lane0 & 31)) | (1L << (32 + ((lane0 >>> 8) & 31)));
    }

    @Override
    public void insert(MemorySegment bits, long at, long lane0, long lane1) {
      bits.set(
          ScalarGroupKernel.LE_LONG, at, bits.get(ScalarGroupKernel.LE_LONG, at) | mask(lane0));
    }

    @Override
    public boolean test(MemorySegment bits, long at, long lane0, long lane1) {
      long m = mask(lane0);
      return (bits.get(ScalarGroupKernel.LE_LONG, at) & m) == m;
    }
  }

  /** lw = 32 in 128-bit chunks: the 4 position bytes of a chunk are one source int. */
  private static final class Ints128 extends Base {
    private static final VectorSpecies<Integer> S = IntVector.SPECIES_128;
    private static final IntVector ONES = IntVector.broadcast(S, 1);
    private final int chunks;

    /** The bits of words 4c .. 4c + 3 from key bytes {@code at .. at + 3}. */
    private static IntVector keyMask(byte[] keys, int at) {
      return ONES.lanewise(
          VectorOperators.LSHL,
          (IntVector)
              ByteVector.fromArray(KEY_BYTES, keys, at).convertShape(VectorOperators.B2I, S, 0));
    }

    @Override
    public void insertKey(MemorySegment bits, long at, byte[] keys, int offset) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        IntVector m = keyMask(keys, offset + c * S.length());
        IntVector.fromMemorySegment(S, bits, at, LE).or(m).intoMemorySegment(bits, at, LE);
      }
    }

    @Override
    public boolean testKey(MemorySegment bits, long at, byte[] keys, int offset) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        IntVector m = keyMask(keys, offset + c * S.length());
        IntVector missing =
            m.lanewise(VectorOperators.AND_NOT, IntVector.fromMemorySegment(S, bits, at, LE));
        if (!isZero128(missing.reinterpretAsLongs())) {
          return false;
        }
      }
      return true;
    }

    Ints128(int chunks) {
      this.chunks = chunks;
    }

    private static IntVector mask(long lane0, long lane1, int chunk) {
      IntVector positions =
          IntVector.broadcast(S, sourceInt(lane0, lane1, chunk))
              .lanewise(VectorOperators.LSHR, IntVector.fromArray(S, INT_SHIFTS, 0));
      return IntVector.broadcast(S, 1).lanewise(VectorOperators.LSHL, positions);
    }

    @Override
    public void insert(MemorySegment bits, long at, long lane0, long lane1) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        IntVector m = mask(lane0, lane1, c);
        IntVector.fromMemorySegment(S, bits, at, LE).or(m).intoMemorySegment(bits, at, LE);
      }
    }

    @Override
    public boolean test(MemorySegment bits, long at, long lane0, long lane1) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        IntVector m = mask(lane0, lane1, c);
        IntVector missing =
            m.lanewise(VectorOperators.AND_NOT, IntVector.fromMemorySegment(S, bits, at, LE));
        if (!isZero128(missing.reinterpretAsLongs())) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * lw = 32 in 256-bit chunks (8 words each): k = 8 is one chunk, one AVX2 register a group, the
   * paper's SIMD shape; k = 16 two. Chunk c reads lane c, low half in lanes 0..3, high in 4..7.
   */
  private static final class Ints256 extends Base {
    private static final VectorSpecies<Integer> S = IntVector.SPECIES_256;
    private static final VectorMask<Integer> UPPER_FOUR = VectorMask.fromLong(S, 0xF0L);
    private static final IntVector ONES = IntVector.broadcast(S, 1);
    private final int chunks;

    /** The bits of words 8c .. 8c + 7 from key bytes {@code at .. at + 7}. */
    private static IntVector keyMask(byte[] keys, int at) {
      return ONES.lanewise(
          VectorOperators.LSHL,
          (IntVector)
              ByteVector.fromArray(KEY_BYTES, keys, at).convertShape(VectorOperators.B2I, S, 0));
    }

    @Override
    public void insertKey(MemorySegment bits, long at, byte[] keys, int offset) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        IntVector m = keyMask(keys, offset + c * S.length());
        IntVector.fromMemorySegment(S, bits, at, LE).or(m).intoMemorySegment(bits, at, LE);
      }
    }

    @Override
    public boolean testKey(MemorySegment bits, long at, byte[] keys, int offset) {
      IntVector m0 = keyMask(keys, offset);
      VectorMask<Integer> all =
          m0.and(IntVector.fromMemorySegment(S, bits, at, LE)).compare(VectorOperators.EQ, m0);
      if (chunks == 2) {
        IntVector m1 = keyMask(keys, offset + 8);
        all =
            all.and(
                m1.and(IntVector.fromMemorySegment(S, bits, at + 32, LE))
                    .compare(VectorOperators.EQ, m1));
      }
      return all.allTrue();
    }

    Ints256(int chunks) {
      this.chunks = chunks;
    }

    private static IntVector mask(long lane) {
      IntVector positions =
          IntVector.broadcast(S, (int) lane)
              .blend((int) (lane >>> 32), UPPER_FOUR)
              .lanewise(VectorOperators.LSHR, IntVector.fromArray(S, INT_SHIFTS, 0));
      return IntVector.broadcast(S, 1).lanewise(VectorOperators.LSHL, positions);
    }

    @Override
    public void insert(MemorySegment bits, long at, long lane0, long lane1) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        IntVector m = mask(c == 0 ? lane0 : lane1);
        IntVector.fromMemorySegment(S, bits, at, LE).or(m).intoMemorySegment(bits, at, LE);
      }
    }

    @Override
    public boolean test(MemorySegment bits, long at, long lane0, long lane1) {
      for (int c = 0; c < chunks; c++, at += S.vectorByteSize()) {
        IntVector m = mask(c == 0 ? lane0 : lane1);
        IntVector missing =
            m.lanewise(VectorOperators.AND_NOT, IntVector.fromMemorySegment(S, bits, at, LE));
        if (!missing.compare(VectorOperators.EQ, 0).allTrue()) {
          return false;
        }
      }
      return true;
    }
  }
}
