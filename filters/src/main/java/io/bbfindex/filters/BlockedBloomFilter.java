package io.bbfindex.filters;

import static io.bbfindex.filters.Arguments.requireArgument;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The blockchain Bloom filter (BBF) of Fan and Niu: r groups of k words of lw bits; a key sets one
 * bit in each word of one group, so a lookup touches one cache line and its k bit tests are one
 * SIMD operation.
 *
 * <h2>Design note</h2>
 *
 * <b>Memory.</b> The bit array is one off-heap {@link MemorySegment}, 64-byte aligned (allocated
 * with alignment 64, or a file mapping whose data section starts at a 64-byte aligned offset).
 * Group g occupies bytes {@code [g * G, (g + 1) * G)} with G = k * lw / 8 in {8, 16, 32, 64}, a
 * divisor of 64, so no group straddles a cache line. Word i of a group is at byte {@code i * lw/8}
 * of the group, little-endian; bit b of a word is {@code (word >>> b) & 1}. The bytes are the same
 * on every platform, so a file written on one machine maps unchanged on another.
 *
 * <p><b>Bit derivation</b> ({@link BitDerivation}). Keys are SHA-256d hashes (txids, block hashes)
 * in Bitcoin's internal byte order. Their bytes are already uniform and independent, so, following
 * the paper (section 2.2: SHA-256 as the seed hash), the unsalted derivation does no hashing at
 * all:
 *
 * <pre>
 *   key bytes   0 ..  7  -> lane L0 (little-endian long)   bit positions of words 0..7
 *   key bytes   8 .. 15  -> lane L1 (little-endian long)   bit positions of words 8..15 (k = 16 only)
 *   key bytes  16 .. 23  -> lane L2 (little-endian long)   group index
 *   key bytes  24 .. 31  -> never read (unsalted, only bytes 16..19 of L2 are used)
 *
 *   derivation 1 (salt == 0):  Li = raw lane i
 *   derivation 2 (salt != 0):  Li = fmix64(raw_i XOR K_i),  K_i = fmix64(salt + (i + 1) * 0x9E3779B97F4A7C15)
 *
 *   position byte P[i] = byte (i mod 8) of L(i / 8), counting from the least significant byte
 *   word i (0 &lt;= i &lt; k) gets bit  P[i] AND (lw - 1)      (the low 5 or 6 bits of the byte)
 *   h                  =  L2 AND 0xFFFFFFFF              (the group bits: key bytes 16..19)
 *   group (format v2)  =  (h * r) &gt;&gt;&gt; 32                 (any r in [1, 2^32])
 *   group (format v1)  =  h AND (r - 1)                  (r a power of two)
 * </pre>
 *
 * <ul>
 *   <li>Group and positions come from disjoint bytes, so they are independent and the measured
 *       false-positive rate follows the paper's eq. 3. (Taking the group from the same low bits
 *       that choose word 0's bit measured well above the model in an early trial, not kept.)
 *   <li>Bytes 24..31 are never read (unsalted, bytes 20..23 neither: the group bits are L2's low
 *       half): a block hash in internal byte order ends in the zero bytes of its proof of work
 *       (about 10 of them today: bytes 22..31). The group uses bytes 16..19, which stay random
 *       until block hashes need 96 leading zero bits.
 *   <li>The paper takes the group by AND with r - 1, which needs a power-of-two r: a filter can
 *       then only double, so a target lands anywhere between 1x and 2x the bits eq. 3 needs. Format
 *       version 2 reads the group bits h as the fraction h / 2^32 and scales it by r
 *       (multiply-shift, one multiplication more than the mask): any r, so sizing stops at the
 *       smallest r meeting the target. Groups get floor or ceil of 2^32 / r of the 2^32 values of
 *       h, so for r well below 2^32 every group is equally likely to within r / 2^32 and eq. 3
 *       holds as for a power of two. Version 1 files keep the mask ({@link BbfGeometry.Indexing}).
 *   <li>A whole byte per position wastes 2 or 3 bits per word, but makes every position a per-lane
 *       variable shift of a broadcast lane: the vector kernel builds the k one-bit masks with two
 *       shifts ({@link VectorGroupKernel}), and Java's shifts already drop the unused high bits.
 *   <li>With a salt every lane goes through murmur3's fmix64, a bijection of 64-bit values; the
 *       salt enters before the non-linear mixer, so which keys collide depends on the salt (with a
 *       plain XOR the same pairs of keys would collide under every salt). fmix64 is not a
 *       cryptographic PRF: a salt spreads honest key sets differently per store, it does not stop
 *       an attacker who knows it.
 * </ul>
 *
 * <b>Kernels.</b> {@link Kernel#SCALAR} ({@link ScalarGroupKernel}) and {@link Kernel#VECTOR}
 * ({@link VectorGroupKernel}) set and test exactly the same bits; the best available one is chosen
 * once per JVM ({@link #bestKernel()}). Unsalted filters hand the kernel the key itself, whose
 * bytes 0..15 are the position bytes, so the vector kernel loads them straight into its lanes. The
 * batch lookups ({@link #mightContainBatch}, boolean and bitmap forms) are {@link
 * MembershipFilter}'s plain loop over {@link #mightContain}: nothing a key's answer depends on
 * steers a branch (the vector kernel's test is branch-free), so the CPU runs ahead through the
 * following keys while a group load misses and keeps as many misses in flight as its reorder window
 * holds keys. A loop with the fields hoisted by hand measured slower (5.50 against 5.21 ns a key at
 * n = 1e7: FilterBenchmark.negativeBatch at 618f05c vs negativeBatchBooleans at 77980cb, BBF_SIMD),
 * and so did two-pass shapes that touch every group first ({@code BatchShapeBenchmark}).
 *
 * <p><b>False positives.</b> {@link #modelledFpr()} is eq. 3 of the paper at the present key count:
 * Z ~ Binomial(n, 1/r) keys per group, P(FP | Z = z) = (1 - (1 - 1/lw)^z)^k ({@link BbfSizing}).
 *
 * <p><b>Threads.</b> Lookups may run from any number of threads at once. {@link #add} and {@link
 * #union} are not synchronised: build a filter on one thread, then publish it safely. A filter
 * loaded from a file is read-only.
 */
public final class BlockedBloomFilter implements MembershipFilter, AutoCloseable {

  /** The two implementations of the group operations; both give identical bits and answers. */
  public enum Kernel {
    /** Plain Java, one word at a time. */
    SCALAR,
    /** Vector API ({@code jdk.incubator.vector}), a whole group (or 256-bit chunks) at a time. */
    VECTOR
  }

  /** Derivation id of unsalted filters (the key bytes are used as they are). */
  public static final int DERIVATION_UNSALTED = BitDerivation.UNSALTED;

  /** Derivation id of salted filters (every lane mixed with the salt by fmix64). */
  public static final int DERIVATION_SALTED = BitDerivation.SALTED;

  private final BbfGeometry geometry;
  private final long salt;
  private final BitDerivation derivation;
  private final GroupKernel kernel;
  private final MemorySegment bits;
  private final long groupMask;
  private final long groups;
  private final boolean multiplyShift;
  private final int groupShift;
  private final boolean usesLane1;

  /** Unsalted: position byte P[i] is key byte i, so kernels may read them from the key. */
  private final boolean rawPositions;

  private final boolean readOnly;
  private final @Nullable AutoCloseable owner;
  private boolean closed;
  private long count;

  private BlockedBloomFilter(
      BbfGeometry geometry,
      long salt,
      GroupKernel kernel,
      MemorySegment bits,
      long count,
      boolean readOnly,
      @Nullable AutoCloseable owner) {
    this.geometry = geometry;
    this.salt = salt;
    this.derivation = new BitDerivation(salt);
    this.kernel = kernel;
    this.bits = bits;
    this.groupMask = geometry.groups() - 1;
    this.groups = geometry.groups();
    this.multiplyShift = geometry.indexing() == BbfGeometry.Indexing.MULTIPLY_SHIFT;
    this.groupShift = Integer.numberOfTrailingZeros(geometry.groupBytes());
    this.usesLane1 = geometry.k() > 8;
    this.rawPositions = salt == 0;
    this.readOnly = readOnly;
    this.owner = owner;
    this.count = count;
  }

  /**
   * An empty filter using the best kernel this JVM offers.
   *
   * @param salt 0 for the unsalted derivation (id 1), anything else for the salted one (id 2)
   * @throws NullPointerException if {@code geometry} is null
   */
  public static BlockedBloomFilter create(BbfGeometry geometry, long salt) {
    return create(geometry, salt, bestKernel());
  }

  /**
   * An empty filter using the given kernel.
   *
   * @throws UnsupportedOperationException if {@code kernel} is {@link Kernel#VECTOR} and this JVM
   *     cannot run it (see {@link #isKernelAvailable})
   */
  public static BlockedBloomFilter create(BbfGeometry geometry, long salt, Kernel kernel) {
    Objects.requireNonNull(geometry, "geometry");
    Objects.requireNonNull(kernel, "kernel");
    GroupKernel groupKernel = KernelSelection.create(geometry, kernel);
    Arena arena = Arena.ofShared();
    try {
      MemorySegment bits = arena.allocate(geometry.byteSize(), BbfGeometry.CACHE_LINE_BYTES);
      return new BlockedBloomFilter(geometry, salt, groupKernel, bits, 0, false, arena);
    } catch (RuntimeException | OutOfMemoryError e) {
      arena.close();
      throw e;
    }
  }

  /**
   * An empty filter sized by {@link BbfSizing#forTarget(long, double)} for {@code expectedKeys}
   * keys at {@code targetFpr}.
   *
   * @throws IllegalArgumentException if the target cannot be met (see {@link BbfSizing})
   */
  public static BlockedBloomFilter forKeys(long expectedKeys, double targetFpr, long salt) {
    return create(BbfSizing.forTarget(expectedKeys, targetFpr), salt);
  }

  /**
   * A read-only filter over existing bits, for persistence layers (a file mapping). The filter does
   * not copy the bits; {@link #close()} closes {@code owner}.
   *
   * @param keyCount keys the bits hold (for {@link #count()} and {@link #modelledFpr()})
   * @param bits exactly {@code geometry.byteSize()} bytes, 64-byte aligned when native
   * @param owner closed by {@link #close()}, may be null
   * @throws IllegalArgumentException if the size or alignment is wrong or {@code keyCount < 0}
   */
  public static BlockedBloomFilter wrapReadOnly(
      BbfGeometry geometry,
      long salt,
      long keyCount,
      MemorySegment bits,
      @Nullable AutoCloseable owner) {
    return wrapReadOnly(geometry, salt, keyCount, bits, owner, bestKernel());
  }

  /**
   * As {@link #wrapReadOnly(BbfGeometry, long, long, MemorySegment, AutoCloseable)}, answering with
   * {@code kernel} (e.g. the scalar one over a file mapping, whose faults HotSpot turns into an
   * InternalError where a compiled Vector API load of a truncated file can crash the JVM).
   *
   * @throws UnsupportedOperationException if {@code kernel} is unavailable on this JVM
   */
  public static BlockedBloomFilter wrapReadOnly(
      BbfGeometry geometry,
      long salt,
      long keyCount,
      MemorySegment bits,
      @Nullable AutoCloseable owner,
      Kernel kernel) {
    Objects.requireNonNull(geometry, "geometry");
    Objects.requireNonNull(kernel, "kernel");
    Objects.requireNonNull(bits, "bits");
    requireArgument(
        bits.byteSize() == geometry.byteSize(),
        "bits must be exactly " + geometry.byteSize() + " bytes for " + geometry,
        bits.byteSize());
    requireArgument(
        !bits.isNative() || bits.address() % BbfGeometry.CACHE_LINE_BYTES == 0,
        "bits must start at a 64-byte aligned address",
        "0x" + Long.toHexString(bits.address()));
    requireArgument(keyCount >= 0, "keyCount must be >= 0", keyCount);
    GroupKernel groupKernel = KernelSelection.create(geometry, kernel);
    return new BlockedBloomFilter(
        geometry, salt, groupKernel, bits.asReadOnly(), keyCount, true, owner);
  }

  /** The kernel chosen for this JVM: VECTOR when the Vector API is usable, else SCALAR. */
  public static Kernel bestKernel() {
    return KernelSelection.best();
  }

  /** Whether filters can be created with {@code kernel} on this JVM. */
  public static boolean isKernelAvailable(Kernel kernel) {
    return KernelSelection.isAvailable(Objects.requireNonNull(kernel, "kernel"));
  }

  /**
   * A read-only view of the same bits that answers with another kernel (to compare kernels on one
   * array, e.g. a mapped file). It shares the original's lifetime and reports the key count at the
   * time of the call; closing the view does nothing, close the original.
   *
   * @throws UnsupportedOperationException if {@code kernel} is unavailable on this JVM
   */
  public BlockedBloomFilter withKernel(Kernel kernel) {
    return new BlockedBloomFilter(
        geometry, salt, KernelSelection.create(geometry, kernel), bits, count, true, null);
  }

  @Override
  public boolean add(byte[] keys, int offset) {
    checkWritable();
    Objects.checkFromIndexSize(offset, KEY_BYTES, keys.length);
    long groupOffset = group(derivation.lane2(keys, offset)) << groupShift;
    if (rawPositions) {
      kernel.insertKey(bits, groupOffset, keys, offset);
    } else {
      long lane0 = derivation.lane0(keys, offset);
      long lane1 = usesLane1 ? derivation.lane1(keys, offset) : 0;
      kernel.insert(bits, groupOffset, lane0, lane1);
    }
    count++;
    return true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The unsalted branch is the hot path of every lookup (and of the batches, which loop over
   * this method): it reads the raw group lane without going through a {@link BitDerivation}
   * instance, one object and one test fewer per key (in cache, a lookup is a few dozen
   * instructions, so each one shows).
   */
  @Override
  public boolean mightContain(byte[] keys, int offset) {
    // offset + 31 < length here, offset >= 0 in the reads of bytes 0.. and 16..: together the
    // check of [offset, offset + 32) in one compare instead of checkFromIndexSize's four.
    Objects.checkIndex(offset + (KEY_BYTES - 1), keys.length);
    if (rawPositions) {
      long groupOffset = group(BitDerivation.rawLane(keys, offset + 16)) << groupShift;
      return kernel.testKey(bits, groupOffset, keys, offset);
    }
    long groupOffset = group(derivation.lane2(keys, offset)) << groupShift;
    long lane0 = derivation.lane0(keys, offset);
    long lane1 = usesLane1 ? derivation.lane1(keys, offset) : 0;
    return kernel.test(bits, groupOffset, lane0, lane1);
  }

  /**
   * The group index of a key whose lane L2 is {@code lane2}: its low 32 bits (key bytes 16..19 when
   * unsalted) reduced to [0, r) by multiply-shift (format v2), or masked (v1, power-of-two r). The
   * product of a 32-bit value and r &lt;= 2^32 fits in 64 unsigned bits, so {@code >>>} is exact.
   * The branch goes the same way for every key of a filter: predicted, it costs nothing.
   */
  private long group(long lane2) {
    return multiplyShift ? ((lane2 & 0xFFFF_FFFFL) * groups) >>> 32 : lane2 & groupMask;
  }

  /**
   * ORs {@code other}'s bits into this filter, which then answers "maybe" for every key either
   * filter held. The key count becomes the sum (exact for disjoint key sets, an upper bound
   * otherwise).
   *
   * @throws IllegalArgumentException if the geometries, salts or derivations differ
   * @throws UnsupportedOperationException if this filter is read-only
   */
  public void union(BlockedBloomFilter other) {
    Objects.requireNonNull(other, "other");
    checkWritable();
    if (!geometry.equals(other.geometry)) {
      throw new IllegalArgumentException(
          "cannot union filters of different geometry: " + geometry + " vs " + other.geometry);
    }
    if (salt != other.salt || derivationId() != other.derivationId()) {
      throw new IllegalArgumentException(
          "cannot union filters of different salt or derivation: derivation "
              + derivationId()
              + " vs "
              + other.derivationId()
              + ", salts differ: "
              + (salt != other.salt));
    }
    long bytes = geometry.byteSize();
    for (long at = 0; at < bytes; at += Long.BYTES) {
      bits.set(
          ScalarGroupKernel.LE_LONG,
          at,
          bits.get(ScalarGroupKernel.LE_LONG, at) | other.bits.get(ScalarGroupKernel.LE_LONG, at));
    }
    count += other.count;
  }

  /** Number of set bits (population count of the whole array). */
  public long bitCount() {
    long bytes = geometry.byteSize();
    long ones = 0;
    for (long at = 0; at < bytes; at += Long.BYTES) {
      ones += Long.bitCount(bits.get(ScalarGroupKernel.LE_LONG, at));
    }
    return ones;
  }

  /** Fraction of bits set: {@link #bitCount()} / {@link #bitSize()}. */
  public double fillRatio() {
    return (double) bitCount() / geometry.bitSize();
  }

  /** Keys added (duplicates count again), or loaded from the file header. */
  @Override
  public long count() {
    return count;
  }

  @Override
  public long bitSize() {
    return geometry.bitSize();
  }

  /** The paper's eq. 3 at the present key count ({@link BbfSizing#modelFpr}). */
  @Override
  public double modelledFpr() {
    return BbfSizing.modelFpr(count, geometry);
  }

  public BbfGeometry geometry() {
    return geometry;
  }

  /** The salt; 0 means unsalted. */
  public long salt() {
    return salt;
  }

  /** {@link #DERIVATION_UNSALTED} (1) when the salt is 0, else {@link #DERIVATION_SALTED} (2). */
  public int derivationId() {
    return BitDerivation.idFor(salt);
  }

  public Kernel kernel() {
    return kernel.kind();
  }

  /**
   * Whether {@link #add} and {@link #union} are refused (filters loaded from files, {@link
   * #wrapReadOnly} and {@link #withKernel} views).
   */
  public boolean isReadOnly() {
    return readOnly;
  }

  /**
   * A read-only view of the bit array ({@link BbfGeometry#byteSize()} bytes, layout in the class
   * comment), valid until {@link #close()}.
   */
  public MemorySegment bits() {
    return bits.asReadOnly();
  }

  /** Frees the bit array (or unmaps the file). Further use throws IllegalStateException. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (owner != null) {
      try {
        owner.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("cannot release the filter's memory", e);
      }
    }
  }

  private void checkWritable() {
    if (readOnly) {
      throw new UnsupportedOperationException("this filter is read-only (loaded from a file)");
    }
  }

  @Override
  public String toString() {
    return "BlockedBloomFilter["
        + geometry
        + ", keys="
        + count
        + ", derivation="
        + derivationId()
        + ", kernel="
        + kernel()
        + (readOnly ? ", read-only" : "")
        + "]";
  }
}
