package io.bbfindex.ingest;

import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockTable;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The blocks with data on disk by their place in the blk files, (file, dataPos): every {@code 't'}
 * txindex row resolves through it. As a hash map would answer: for equal places, the last block
 * given.
 *
 * <p>Why not a {@code HashMap}: {@link NodeIndex#open} builds this at every start over ~950,000
 * blocks (mainnet), where a map's entries and boxed keys cost ~0.1-0.2 s. Here an open-addressing
 * table of primitives: slot {@code s} holds the key ({@code file << 32 | dataPos}, as the map's key
 * was) at {@code 2s} and the block's index plus one at {@code 2s + 1} (0: empty), so a probe reads
 * one cache line. Linear probing at a load of at most one half; the slot is the high bits of the
 * key times an odd multiplier drawn at random per table, so that no block index, however its
 * positions fall, can make the probes long on purpose (blocks sit at the same offsets in many
 * files, which {@code Long.hashCode} bunched).
 *
 * <p>Answers a row: a {@link BlockTable}'s ({@link #of(BlockTable)}) or an array's index ({@link
 * #of(BlockInfo[])}).
 */
final class BlocksByPosition {

  /** The blocks {@link #of(BlockInfo[])} was given; null over a table. */
  private final BlockInfo @Nullable [] blocks;

  private final long[] table;
  private final long multiplier;
  private final int shift;
  private final int mask;

  private BlocksByPosition(BlockInfo @Nullable [] blocks, int slots, long multiplier) {
    this.blocks = blocks;
    this.table = new long[2 * slots];
    this.multiplier = multiplier;
    this.shift = Long.numberOfLeadingZeros(slots - 1L);
    this.mask = slots - 1;
  }

  /**
   * The blocks of {@code blocks} with {@code dataPos >= 0}.
   *
   * @param blocks kept (not copied)
   */
  static BlocksByPosition of(BlockInfo[] blocks) {
    return of(blocks, ThreadLocalRandom.current().nextLong() | 1);
  }

  /** With a given multiplier (odd): tests choose one that makes every key collide. */
  static BlocksByPosition of(BlockInfo[] blocks, long multiplier) {
    BlocksByPosition t = new BlocksByPosition(blocks, slots(blocks.length), multiplier);
    for (int i = 0; i < blocks.length; i++) {
      BlockInfo b = blocks[i];
      if (b.dataPos() >= 0) {
        t.put(key(b.file(), b.dataPos()), i);
      }
    }
    return t;
  }

  /** The rows of {@code rows} with {@code dataPos >= 0}; {@link #row} answers. */
  static BlocksByPosition of(BlockTable rows) {
    BlocksByPosition t =
        new BlocksByPosition(null, slots(rows.size()), ThreadLocalRandom.current().nextLong() | 1);
    for (int r = 0; r < rows.size(); r++) {
      long dataPos = rows.dataPos(r);
      if (dataPos >= 0) {
        t.put(key(rows.file(r), dataPos), r);
      }
    }
    return t;
  }

  /** A power of two with at least twice the blocks, and at least 2 (the shift stays below 64). */
  private static int slots(int blocks) {
    int slots = Math.max(2, Integer.highestOneBit(Math.max(1, blocks)) << 2);
    if (slots <= 0 || slots > (1 << 29)) {
      throw new IllegalArgumentException("too many blocks for one table: " + blocks);
    }
    return slots;
  }

  /** file in the high half, dataPos in the low one: a blk position fits 32 bits (< 128 MiB). */
  private static long key(int file, long dataPos) {
    return ((long) file << 32) | dataPos;
  }

  private int slot(long key) {
    return (int) ((key * multiplier) >>> shift) & mask;
  }

  private void put(long key, int index) {
    for (int s = slot(key); ; s = (s + 1) & mask) {
      if (table[2 * s + 1] == 0 || table[2 * s] == key) {
        table[2 * s] = key;
        table[2 * s + 1] = index + 1L;
        return;
      }
    }
  }

  /** The block of {@link #of(BlockInfo[])} stored at {@code dataPos} in blk{@code file}.dat. */
  @Nullable BlockInfo get(int file, long dataPos) {
    int r = row(file, dataPos);
    return r < 0 ? null : Objects.requireNonNull(blocks, "built over a table")[r];
  }

  /** The row of the block stored at {@code dataPos} in blk{@code file}.dat, or -1. */
  int row(int file, long dataPos) {
    long key = key(file, dataPos);
    for (int s = slot(key); ; s = (s + 1) & mask) {
      long v = table[2 * s + 1];
      if (v == 0) {
        return -1;
      }
      if (table[2 * s] == key) {
        return (int) v - 1;
      }
    }
  }
}
