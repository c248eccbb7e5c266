package io.bbfindex.ingest.ownindex;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The blocks with data of the node's block index, by file and position: which block a byte offset
 * of a blk file falls in (the one with the highest {@code dataPos} whose header ends before it).
 * Immutable; per file a sorted {@code long[]} of positions and the blocks beside it.
 */
final class BlockPositions {

  private final Map<Integer, long[]> positions = new HashMap<>();
  private final Map<Integer, BlockInfo[]> blocks = new HashMap<>();

  BlockPositions(Collection<BlockInfo> all) {
    Map<Integer, List<BlockInfo>> byFile = new HashMap<>();
    for (BlockInfo b : all) {
      if (holdsData(b)) {
        byFile.computeIfAbsent(b.file(), f -> new ArrayList<>()).add(b);
      }
    }
    byFile.forEach(
        (file, list) -> {
          list.sort(Comparator.comparingLong(BlockInfo::dataPos));
          positions.put(file, list.stream().mapToLong(BlockInfo::dataPos).toArray());
          blocks.put(file, list.toArray(BlockInfo[]::new));
        });
  }

  /** Whether the block index says the block's bytes are on disk. */
  static boolean holdsData(BlockInfo b) {
    return BlockStatus.hasData(b.status()) && b.file() >= 0 && b.dataPos() >= 0;
  }

  /**
   * The block a transaction starting at {@code offset} of {@code blk<file>.dat} would be in: the
   * last block whose header ends before the offset (the tx count comes first, so at least one byte
   * before). Empty for a file without blocks or an offset before the first block's transactions.
   */
  Optional<BlockInfo> blockBefore(int file, long offset) {
    long[] pos = positions.get(file);
    BlockInfo[] inFile = blocks.get(file);
    if (pos == null || inFile == null) { // both or neither: filled together
      return Optional.empty();
    }
    // the first block whose transactions cannot hold the offset: dataPos + 80 + 1 > offset
    int i = Arrays.binarySearch(pos, offset - BlockFileReader.HEADER_BYTES - 1);
    int last = i >= 0 ? i : -i - 2;
    return last < 0 ? Optional.empty() : Optional.of(inFile[last]);
  }
}
