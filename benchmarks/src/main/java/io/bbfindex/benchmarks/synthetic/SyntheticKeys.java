package io.bbfindex.benchmarks.synthetic;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Synthetic 32-byte keys (txids or block hashes) for benchmarks: key number {@code i} of a seed is
 * four SplitMix64 outputs of {@code (seed, i)}, so any key can be produced again from its index
 * without storing it. That lets a benchmark split one key set over 1, 56, 560 or 5,600 "block
 * files" (contiguous index ranges, {@link #rangeStart}) and get the same set every time, and draw
 * negatives from another seed (a collision among 2^256 values is not a practical concern).
 *
 * <p>SplitMix64 (Steele, Lea, Flood 2014) passes BigCrush; real txids are SHA-256d outputs, so
 * uniformly random bytes are their faithful model.
 */
public final class SyntheticKeys {

  /** Bytes per key. */
  public static final int KEY_BYTES = 32;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final long seed;

  public SyntheticKeys(long seed) {
    this.seed = seed;
  }

  public long seed() {
    return seed;
  }

  /** Writes key {@code index} into {@code out[offset .. offset + 32)}. */
  public void key(long index, byte[] out, int offset) {
    // four consecutive SplitMix64 states of the stream that starts at mix(seed) + 4 * index
    long state = mix64(seed) + 4 * index * GOLDEN;
    for (int w = 0; w < 4; w++) {
      state += GOLDEN;
      LONG_LE.set(out, offset + 8 * w, mix64(state));
    }
  }

  /** Keys {@code first .. first + count} written back to back into a new array. */
  public byte[] keys(long first, int count) {
    if (count < 0 || (long) count * KEY_BYTES > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("count must be in [0, 2^26): " + count);
    }
    byte[] out = new byte[count * KEY_BYTES];
    for (int i = 0; i < count; i++) {
      key(first + i, out, i * KEY_BYTES);
    }
    return out;
  }

  /**
   * First key index of part {@code part} when {@code n} keys are split into {@code parts}
   * contiguous ranges.
   */
  public static long rangeStart(long n, int parts, int part) {
    if (n < 0 || parts < 1 || part < 0 || part > parts) {
      throw new IllegalArgumentException(
          "need n >= 0, parts >= 1, 0 <= part <= parts: " + n + ", " + parts + ", " + part);
    }
    // n * part overflows only beyond 2^63 / 2^20 keys: far above any chain
    return Math.multiplyExact(n, part) / parts;
  }

  /** SplitMix64's finaliser (Stafford variant 13). */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
