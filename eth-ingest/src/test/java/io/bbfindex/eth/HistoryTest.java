package io.bbfindex.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history store on its own, with generated chains: exact answers across ranges, durability only
 * through the manifest, a summary rebuilt from the records when missing, damage detected.
 */
class HistoryTest {
  private static final int BITS = 3;
  private static final TxHash GENESIS = hash(new SplittableRandom(0));

  @TempDir Path dir;

  private static TxHash hash(SplittableRandom r) {
    byte[] b = new byte[32];
    r.nextBytes(b);
    return TxHash.of(b, 0);
  }

  /** {@code ranges} ranges of linked blocks from block 0, 0..9 random transactions each. */
  private static List<List<BlockTxs>> chain(int ranges, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<List<BlockTxs>> out = new ArrayList<>();
    TxHash parent = TxHash.of(new byte[32], 0);
    long n = 0;
    for (int i = 0; i < ranges; i++) {
      List<BlockTxs> range = new ArrayList<>();
      for (int b = 0; b < 1 << BITS; b++, n++) {
        List<TxHash> txs = new ArrayList<>();
        for (int t = r.nextInt(10); t > 0; t--) {
          txs.add(hash(r));
        }
        TxHash h = n == 0 ? GENESIS : hash(r);
        range.add(new BlockTxs(n, h, parent, txs));
        parent = h;
      }
      out.add(range);
    }
    return out;
  }

  private static void assertAllFound(History h, List<List<BlockTxs>> chain, int ranges) {
    for (List<BlockTxs> range : chain.subList(0, ranges)) {
      for (BlockTxs b : range) {
        for (int i = 0; i < b.txs().size(); i++) {
          EthTxLocation at = h.find(b.txs().get(i).toBytes(), 0).orElseThrow();
          assertEquals(new EthTxLocation(b.number(), b.hash(), i), at);
        }
      }
    }
  }

  @Test
  void answersExactlyAcrossRangesAndSurvivesReopening() throws IOException {
    List<List<BlockTxs>> chain = chain(6, 1);
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      for (List<BlockTxs> range : chain) {
        h.append(range);
      }
      assertAllFound(h, chain, 6);
      h.checkpoint();
    }
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      assertEquals(6, h.rangeCount());
      assertEquals(chain.getLast().getLast().hash(), h.lastBlockHash().orElseThrow());
      assertAllFound(h, chain, 6);
      SplittableRandom r = new SplittableRandom(99);
      for (int i = 0; i < 10_000; i++) {
        assertTrue(h.find(hash(r).toBytes(), 0).isEmpty());
      }
    }
  }

  @Test
  void rangesAfterTheLastCheckpointAreNotCountedAfterACrash() throws IOException {
    List<List<BlockTxs>> chain = chain(5, 2);
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      h.append(chain.get(0));
      h.append(chain.get(1));
      h.checkpoint();
      h.append(chain.get(2)); // written, never checkpointed: as if killed here
    }
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      assertEquals(2, h.rangeCount());
      assertAllFound(h, chain, 2);
      h.append(chain.get(2)); // the orphan files are simply written again
      h.append(chain.get(3));
      h.checkpoint();
    }
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      assertEquals(4, h.rangeCount());
      assertAllFound(h, chain, 4);
    }
  }

  @Test
  void aMissingSummaryIsRebuiltFromTheRecords() throws IOException {
    List<List<BlockTxs>> chain = chain(3, 3);
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      for (List<BlockTxs> range : chain) {
        h.append(range);
      }
      h.checkpoint();
    }
    Files.delete(dir.resolve(History.SUMMARY));
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      assertAllFound(h, chain, 3);
    }
  }

  @Test
  void foreignStoresAreRefusedAndADamagedRangeIsRebuilt() throws IOException {
    List<List<BlockTxs>> chain = chain(2, 4);
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      h.append(chain.get(0));
      h.append(chain.get(1));
      h.checkpoint();
      assertThrows(
          IllegalArgumentException.class, () -> h.append(chain.get(1)), "a range out of turn");
    }
    IOException other =
        assertThrows(
            IOException.class,
            () -> History.open(dir, BITS, 0.01, TxHash.parse("0x" + "11".repeat(32))));
    assertTrue(other.getMessage().contains("another chain"), other.getMessage());
    IOException size =
        assertThrows(IOException.class, () -> History.open(dir, BITS + 1, 0.01, GENESIS));
    assertTrue(size.getMessage().contains("2^" + BITS), size.getMessage());

    Path record = dir.resolve("range-00000001.txr");
    byte[] bytes = Files.readAllBytes(record);
    bytes[bytes.length / 2] ^= 1;
    Files.write(record, bytes);
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      assertEquals(1, h.rangeCount(), "the damaged range is dropped, to be fetched again");
      assertAllFound(h, chain, 1);
      h.append(chain.get(1));
      h.checkpoint();
    }
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      assertEquals(2, h.rangeCount());
      assertAllFound(h, chain, 2);
    }
  }

  @Test
  void aRangeThatDoesNotFollowTheLastIsRefused() throws IOException {
    List<List<BlockTxs>> chain = chain(2, 5);
    List<List<BlockTxs>> fork = chain(2, 6);
    try (History h = History.open(dir, BITS, 0.01, GENESIS)) {
      h.append(chain.get(0));
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> h.append(fork.get(1)));
      assertTrue(e.getMessage().contains("parent hash mismatch"), e.getMessage());
    }
  }
}
