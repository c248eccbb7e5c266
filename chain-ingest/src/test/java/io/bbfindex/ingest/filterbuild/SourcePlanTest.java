package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.ingest.BlockFileInfo;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.TxRecordConsumer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The plan's per-file sums and source tips: each file's last block is its highest, the lowest hash
 * among blocks at that height (forks inside a file, stale blocks above the active ones), whatever
 * order the blocks come in (in hash order, the node's, too); blocks without data count nowhere; the
 * block digest is over the hashes sorted, whatever their order.
 */
class SourcePlanTest {

  @Test
  void lastBlockIsTheHighestThenLowestHashInAnyOrder() throws Exception {
    Random rnd = new Random(41);
    List<BlockInfo> blocks = new ArrayList<>();
    for (int height = 0; height < 3000; height++) {
      int file = height / 100;
      blocks.add(block(rnd, height, file, BlockStatus.HAVE_DATA));
      if (rnd.nextInt(10) == 0) { // a fork block at the same height, in the same or the next file
        blocks.add(block(rnd, height, file + rnd.nextInt(2), BlockStatus.HAVE_DATA));
      }
      if (height % 100 == 99) { // forks at the top of a file: the lower hash must win
        blocks.add(block(rnd, height, file, BlockStatus.HAVE_DATA));
        blocks.add(block(rnd, height, file, BlockStatus.HAVE_DATA));
      }
      if (rnd.nextInt(50) == 0) { // header only: no data, counts nowhere, even if the highest
        blocks.add(block(rnd, height + 5000, file, 0));
      }
    }
    blocks.add(block(rnd, 9999, -1, BlockStatus.HAVE_DATA)); // data flag but no file
    for (int round = 0; round < 4; round++) {
      SourcePlan plan = SourcePlan.of(source(blocks), Path.of("out"));
      Map<Integer, BlockInfo> expectedLast = new HashMap<>();
      Map<Integer, Long> expectedCapacity = new HashMap<>();
      int withData = 0;
      for (BlockInfo b : blocks) {
        if (!BlockStatus.hasData(b.status()) || b.file() < 0) {
          continue;
        }
        withData++;
        expectedCapacity.merge(b.file(), (long) b.txCount(), Long::sum);
        expectedLast.merge(
            b.file(),
            b,
            (x, y) ->
                x.height() != y.height()
                    ? (x.height() > y.height() ? x : y)
                    : (Arrays.compareUnsigned(x.hash(), y.hash()) <= 0 ? x : y));
      }
      assertEquals(expectedLast.size(), plan.files().size());
      for (SourcePlan.FileSource f : plan.files()) {
        assertArrayEquals(expectedLast.get(f.file()).hash(), f.lastBlock(), "file " + f.file());
        assertEquals(expectedCapacity.get(f.file()), f.capacity(), "file " + f.file());
      }
      assertEquals(withData, plan.blockHashes().size());
      byte[][] sorted =
          blocks.stream()
              .filter(b -> BlockStatus.hasData(b.status()) && b.file() >= 0)
              .map(BlockInfo::hash)
              .sorted(Arrays::compareUnsigned)
              .toArray(byte[][]::new);
      assertEquals(SourcePlan.digest(sorted), plan.blockDigest(), "round " + round);
      for (int i = 0; i < sorted.length; i++) {
        assertArrayEquals(sorted[i], plan.blockHashes().get(i));
      }
      if (round == 1) { // the order the node's index hands them out in: by hash
        blocks.sort((x, y) -> Arrays.compareUnsigned(x.hash(), y.hash()));
      } else {
        Collections.shuffle(blocks, rnd);
      }
    }
  }

  private static BlockInfo block(Random rnd, int height, int file, int status) {
    byte[] hash = new byte[32];
    rnd.nextBytes(hash);
    return new BlockInfo(
        hash, height, status, 1 + rnd.nextInt(3000), file, 8, -1, new byte[80], false, -1);
  }

  private static ChainSource source(List<BlockInfo> blocks) {
    List<BlockInfo> copy = List.copyOf(blocks);
    return new ChainSource() {
      @Override
      public Path datadir() {
        return Path.of("datadir");
      }

      @Override
      public Collection<BlockInfo> blocks() {
        return copy;
      }

      @Override
      public Map<Integer, BlockFileInfo> blockFiles() {
        return new TreeMap<>();
      }

      @Override
      public int tipHeight() {
        return 0;
      }

      @Override
      public byte[] tipHash() {
        return new byte[32];
      }

      @Override
      public OptionalInt txindexTipHeight() {
        return OptionalInt.empty();
      }

      @Override
      public Optional<BlockInfo> activeBlockAt(int height) {
        return Optional.empty();
      }

      @Override
      public void forEachTx(int from, int to, TxRecordConsumer c) {}
    };
  }
}
