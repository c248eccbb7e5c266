package io.bbfindex.filters.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.PrimitiveSink;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.catalog.FilterType;
import org.fastfilter.bloom.BlockedBloom;

/**
 * Everything {@code bench filters} measures, built for {@code n} keys at {@value #BITS_PER_KEY}
 * bits a key (the paper's fill factor F = n/m = 0.1): our BBF with each kernel, our peers from
 * {@link FilterType}, and two outside peers, Guava's {@code BloomFilter} and FastFilter's {@code
 * BlockedBloom}, wrapped as {@link MembershipFilter}s so one benchmark method measures them all.
 */
public enum BenchFilter {
  /**
   * BBF, Vector API kernel, k = 8 words of lw = 32 bits: a 256-bit group is one AVX2 register, the
   * paper's SIMD shape. Model FPR at 10 bits a key 1.27 %, FastFilter's BlockedBloom measures about
   * the same (the FP % column of {@code ./bbf-index bench filters}).
   */
  BBF_SIMD {
    @Override
    MembershipFilter create(long n) {
      return bbf(n, 32, BlockedBloomFilter.Kernel.VECTOR);
    }
  },
  /** BBF, scalar kernel, same geometry and bits as {@link #BBF_SIMD}. */
  BBF_SCALAR {
    @Override
    MembershipFilter create(long n) {
      return bbf(n, 32, BlockedBloomFilter.Kernel.SCALAR);
    }
  },
  /**
   * BBF, Vector API kernel, k = 8 words of lw = 64 bits: a 512-bit group fills a cache line (two
   * 256-bit chunks); fewer false positives for the same bits (model 1.05 % at 10 bits a key) at the
   * cost of a second chunk per lookup.
   */
  BBF_SIMD_LW64 {
    @Override
    MembershipFilter create(long n) {
      return bbf(n, 64, BlockedBloomFilter.Kernel.VECTOR);
    }
  },
  /** The paper's BF with k = 8 Murmur3 hashes (the ratio targets are against this one). */
  BLOOM_K8 {
    @Override
    MembershipFilter create(long n) {
      return FilterType.BLOOM.create(n, BITS_PER_KEY, 8);
    }
  },
  /** One-memory-access Bloom filter, its best k for the load. */
  OMBF {
    @Override
    MembershipFilter create(long n) {
      return FilterType.OMBF.create(n, BITS_PER_KEY);
    }
  },
  /** Floe's two-bit Bloom filter, its best k. */
  TWO_BIT {
    @Override
    MembershipFilter create(long n) {
      return FilterType.TWO_BIT.create(n, BITS_PER_KEY);
    }
  },
  /** Cuckoo filter, 4-slot buckets, fingerprint width from the bits a key. */
  CUCKOO {
    @Override
    MembershipFilter create(long n) {
      return FilterType.CUCKOO.create(n, BITS_PER_KEY);
    }
  },
  /** Guava 33's {@code BloomFilter}, fpp 0.0082 (what an optimal BF reaches at 10 bits a key). */
  GUAVA {
    @Override
    MembershipFilter create(long n) {
      return new GuavaAdapter(n);
    }
  },
  /**
   * FastFilter 1.0.2's {@code BlockedBloom} at 10 bits a key. Its constructor is package-private,
   * so it is built with {@code construct(long[], bitsPerKey)} over all members at once; see {@link
   * FastFilterAdapter} for how a 32-byte key becomes its {@code long} key.
   */
  FASTFILTER_BLOCKED {
    @Override
    MembershipFilter create(long n) {
      return new FastFilterAdapter(n);
    }

    @Override
    boolean buildsFromAllKeys() {
      return true;
    }
  };

  /** Bits a key every structure gets: F = n/m = 0.1, as in the paper's Fig. 6. */
  public static final double BITS_PER_KEY = 10;

  /** The BBF's k at {@link #BITS_PER_KEY}: 8, the power of two nearest 10 ln 2. */
  static final int BBF_K = FilterType.bbfDefaultK(BITS_PER_KEY);

  private static BlockedBloomFilter bbf(long n, int wordBits, BlockedBloomFilter.Kernel kernel) {
    if (!BlockedBloomFilter.isKernelAvailable(kernel)) {
      throw new IllegalStateException(
          kernel
              + " BBF needs the Vector API: run the JVM with --add-modules=jdk.incubator.vector");
    }
    return BlockedBloomFilter.create(
        FilterType.bbfGeometry(n, BITS_PER_KEY, BBF_K, wordBits), 0, kernel);
  }

  /** An empty filter for {@code n} keys (FastFilter: filled by {@link FastFilterAdapter#build}). */
  abstract MembershipFilter create(long n);

  /** Whether the structure is built from the whole key set at once rather than key by key. */
  boolean buildsFromAllKeys() {
    return false;
  }

  /** The filter holding keys {@code 0 .. n-1} of {@code seed} ({@link BenchKeys}). */
  public MembershipFilter build(long n, long seed) {
    MembershipFilter filter = create(n);
    if (filter instanceof FastFilterAdapter fast) {
      fast.build(n, seed);
      return fast;
    }
    Fill.insert(filter, n, seed);
    return filter;
  }

  /** Key-by-key filling in chunks, so n = 10^8 needs no 3.2 GB key array. */
  static final class Fill {
    private static final int CHUNK = 4096;

    private Fill() {}

    static void insert(MembershipFilter filter, long n, long seed) {
      byte[] chunk = new byte[CHUNK * BenchKeys.KEY];
      for (long first = 0; first < n; first += CHUNK) {
        int count = (int) Math.min(CHUNK, n - first);
        BenchKeys.fill(seed, first, count, chunk);
        for (int i = 0; i < count; i++) {
          if (!filter.add(chunk, i * BenchKeys.KEY)) {
            throw new IllegalStateException(
                filter.getClass().getSimpleName() + " refused key " + (first + i) + " of " + n);
          }
        }
      }
    }
  }

  /** A key seen by Guava: the 32 bytes at {@code offset} of {@code keys}, without a copy. */
  static final class KeyRef {
    byte[] keys;
    int offset;
  }

  /** Feeds the 32 key bytes to Guava's Murmur3_128, as {@code Funnels.byteArrayFunnel()} would. */
  enum KeyRefFunnel implements Funnel<KeyRef> {
    INSTANCE;

    @Override
    public void funnel(KeyRef key, PrimitiveSink into) {
      into.putBytes(key.keys, key.offset, BenchKeys.KEY);
    }
  }

  /**
   * Guava's BloomFilter over flat key arrays. One reused {@link KeyRef} per adapter, so there is no
   * copy and no allocation of ours per lookup (what Guava itself allocates is Guava's cost). Not
   * thread-safe, which the single-threaded benchmarks do not need.
   */
  static final class GuavaAdapter implements MembershipFilter {
    /** The false-positive rate of an optimal standard Bloom filter at 10 bits a key. */
    static final double FPP = Math.pow(0.5, BITS_PER_KEY * Math.log(2));

    private final BloomFilter<KeyRef> filter;
    private final KeyRef ref = new KeyRef();
    private final long bits;
    private long count;

    GuavaAdapter(long n) {
      this.filter = BloomFilter.create(KeyRefFunnel.INSTANCE, n, FPP);
      // Guava's own sizing formula (BloomFilter.optimalNumOfBits), rounded up to whole longs.
      long m = (long) (-n * Math.log(FPP) / (Math.log(2) * Math.log(2)));
      this.bits = Math.ceilDiv(m, 64) * 64;
    }

    @Override
    public boolean add(byte[] keys, int offset) {
      ref.keys = keys;
      ref.offset = offset;
      filter.put(ref);
      count++;
      return true;
    }

    @Override
    public boolean mightContain(byte[] keys, int offset) {
      ref.keys = keys;
      ref.offset = offset;
      return filter.mightContain(ref);
    }

    @Override
    public long count() {
      return count;
    }

    @Override
    public long bitSize() {
      return bits;
    }

    @Override
    public double modelledFpr() {
      return filter.expectedFpp();
    }
  }

  /**
   * FastFilter's BlockedBloom over flat key arrays. Its keys are {@code long}s, which it hashes
   * again itself ({@code Hash.hash64(key, seed)}); the long of a 32-byte key is its bytes 0..7 read
   * little-endian ({@link BenchKeys#lane0}), which for a SHA-256d output is already uniform, and
   * reading it is part of every measured lookup, as reading the key is for the BBF. Two distinct
   * keys sharing those 8 bytes is a 2^-64 event per pair, ignored.
   */
  static final class FastFilterAdapter implements MembershipFilter {
    private static final java.lang.invoke.VarHandle LE_LONG =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private BlockedBloom filter;
    private long count;

    FastFilterAdapter(long n) {
      if (n > Integer.MAX_VALUE / 16) {
        throw new IllegalArgumentException("FastFilter BlockedBloom sizes with an int: " + n);
      }
    }

    void build(long n, long seed) {
      long[] longs = new long[Math.toIntExact(n)];
      byte[] one = new byte[BenchKeys.KEY];
      for (int i = 0; i < n; i++) {
        BenchKeys.fill(seed, i, 1, one);
        longs[i] = BenchKeys.lane0(one, 0);
      }
      filter = BlockedBloom.construct(longs, (int) BITS_PER_KEY);
      count = n;
    }

    @Override
    public boolean add(byte[] keys, int offset) {
      filter.add((long) LE_LONG.get(keys, offset));
      count++;
      return true;
    }

    @Override
    public boolean mightContain(byte[] keys, int offset) {
      return filter.mayContain((long) LE_LONG.get(keys, offset));
    }

    @Override
    public long count() {
      return count;
    }

    @Override
    public long bitSize() {
      return filter.getBitCount();
    }

    @Override
    public double modelledFpr() {
      return Double.NaN;
    }
  }
}
