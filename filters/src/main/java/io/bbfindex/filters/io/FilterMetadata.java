package io.bbfindex.filters.io;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a filter file says about where its keys came from (stored in its header, see
 * filters/FORMAT.md).
 *
 * @param kind what the keys are
 * @param blockFile the Bitcoin Core block file number (blk{@code NNNNN}.dat) the keys come from, or
 *     {@link #NO_BLOCK_FILE} for a filter over several files
 * @param bytesCovered how many bytes of the source (the block file) the filter covers, so a growing
 *     last block file can be detected and its filter rebuilt
 * @param sourceTip 32 bytes: hash (internal byte order) of the last block covered; all zero when
 *     not applicable
 * @param buildTimeMillis when the filter was built, epoch milliseconds
 */
public record FilterMetadata(
    FilterKind kind, int blockFile, long bytesCovered, byte[] sourceTip, long buildTimeMillis) {

  /** {@link #blockFile()} of a filter not tied to a single block file. */
  public static final int NO_BLOCK_FILE = -1;

  /** Length of {@link #sourceTip()}. */
  public static final int TIP_BYTES = 32;

  /**
   * Validates and copies the tip.
   *
   * @throws IllegalArgumentException naming the first field out of bounds
   */
  public FilterMetadata {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(sourceTip, "sourceTip");
    String problem = problem(blockFile, bytesCovered, sourceTip.length, buildTimeMillis);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    sourceTip = sourceTip.clone();
  }

  /** Metadata with only a kind (no block file, nothing covered, zero tip, build time now). */
  public static FilterMetadata of(FilterKind kind) {
    return new FilterMetadata(
        kind, NO_BLOCK_FILE, 0, new byte[TIP_BYTES], System.currentTimeMillis());
  }

  /** The first field out of bounds, as a message, or {@code null} when all are valid. */
  static @Nullable String problem(
      int blockFile, long bytesCovered, int tipLength, long buildTimeMillis) {
    if (blockFile < NO_BLOCK_FILE) {
      return "blockFile must be >= 0, or -1 for none: " + blockFile;
    }
    if (bytesCovered < 0) {
      return "bytesCovered must be >= 0: " + bytesCovered;
    }
    if (tipLength != TIP_BYTES) {
      return "sourceTip must be 32 bytes: " + tipLength;
    }
    if (buildTimeMillis < 0) {
      return "buildTimeMillis must be >= 0: " + buildTimeMillis;
    }
    return null;
  }

  /** A copy of the 32-byte source tip. */
  @Override
  public byte[] sourceTip() {
    return sourceTip.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FilterMetadata m
        && kind == m.kind
        && blockFile == m.blockFile
        && bytesCovered == m.bytesCovered
        && buildTimeMillis == m.buildTimeMillis
        && Arrays.equals(sourceTip, m.sourceTip);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, blockFile, bytesCovered, buildTimeMillis, Arrays.hashCode(sourceTip));
  }

  @Override
  public String toString() {
    return "FilterMetadata[kind="
        + kind
        + ", blockFile="
        + blockFile
        + ", bytesCovered="
        + bytesCovered
        + ", sourceTip="
        + HexFormat.of().formatHex(sourceTip)
        + ", buildTimeMillis="
        + buildTimeMillis
        + "]";
  }
}
