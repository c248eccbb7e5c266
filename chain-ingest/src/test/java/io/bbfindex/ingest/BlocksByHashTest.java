package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.bbfindex.ingest.records.BlockHashKey;
import io.bbfindex.ingest.records.BlockInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The lookup by hash answers as the map it replaced ({@code put} of every block in order, a later
 * equal hash replacing): over blocks in key order (the binary search), in any other order and with
 * repeated hashes (the fallback), for present hashes, absent ones and ones sharing a long prefix.
 */
class BlocksByHashTest {

  @Test
  void sortedBlocksAnswerAsTheMap() {
    Random rnd = new Random(7);
    List<BlockInfo> list = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      list.add(block(randomHash(rnd), i));
    }
    // a run sharing the first 8 bytes (and a pair sharing 31): the prefix alone cannot tell them
    byte[] base = randomHash(rnd);
    for (int i = 0; i < 5; i++) {
      byte[] h = base.clone();
      h[8 + i] ^= (byte) (1 << i);
      list.add(block(h, 9000 + i));
    }
    byte[] twin = base.clone();
    twin[31] ^= 1;
    list.add(block(twin, 9100));
    list.sort((a, b) -> Arrays.compareUnsigned(a.hash(), b.hash()));
    BlockInfo[] blocks = list.toArray(new BlockInfo[0]);
    assertAnswersAsMap(blocks, rnd);
  }

  @Test
  void unsortedOrRepeatedHashesAnswerAsTheMap() {
    Random rnd = new Random(11);
    List<BlockInfo> list = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      list.add(block(randomHash(rnd), i));
    }
    BlockInfo[] shuffled = list.toArray(new BlockInfo[0]);
    assertAnswersAsMap(shuffled, rnd);

    // sorted, but one hash twice (a fork's block given twice, say): the later one answers
    list.sort((a, b) -> Arrays.compareUnsigned(a.hash(), b.hash()));
    BlockInfo repeated = block(list.get(500).hash().clone(), 77_777);
    list.add(501, repeated);
    BlockInfo[] withRepeat = list.toArray(new BlockInfo[0]);
    assertAnswersAsMap(withRepeat, rnd);
    assertSame(repeated, BlocksByHash.of(withRepeat).get(repeated.hash()));
  }

  @Test
  void emptyAndSingleBlock() {
    byte[] h = randomHash(new Random(3));
    assertNull(BlocksByHash.of(new BlockInfo[0]).get(h));
    BlockInfo only = block(h, 0);
    assertSame(only, BlocksByHash.of(new BlockInfo[] {only}).get(h.clone()));
  }

  @Test
  void aHashOfAnotherLengthIsRefusedAsTheMapsKeyRefusedIt() {
    Random rnd = new Random(5);
    BlockInfo a = block(randomHash(rnd), 0);
    BlockInfo b = block(randomHash(rnd), 1);
    for (BlockInfo[] blocks : List.of(new BlockInfo[] {a, b}, new BlockInfo[] {b, a})) {
      BlocksByHash byHash = BlocksByHash.of(blocks);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> byHash.get(new byte[31]));
      assertEquals("a block hash is 32 bytes, got 31", e.getMessage());
    }
  }

  private static void assertAnswersAsMap(BlockInfo[] blocks, Random rnd) {
    Map<BlockHashKey, BlockInfo> map = new HashMap<>();
    for (BlockInfo b : blocks) {
      map.put(BlockHashKey.of(b.hash()), b);
    }
    BlocksByHash byHash = BlocksByHash.of(blocks);
    for (BlockInfo b : blocks) {
      byte[] h = b.hash().clone(); // not the same array
      assertSame(map.get(BlockHashKey.of(h)), byHash.get(h));
      for (int bit : new int[] {0, 63, 64, 255}) { // neighbours: absent
        byte[] near = h.clone();
        near[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
        assertSame(map.get(BlockHashKey.of(near)), byHash.get(near));
      }
    }
    for (int i = 0; i < 1000; i++) {
      byte[] h = randomHash(rnd);
      assertSame(map.get(BlockHashKey.of(h)), byHash.get(h));
    }
    assertNull(byHash.get(new byte[32]));
    byte[] ones = new byte[32];
    Arrays.fill(ones, (byte) 0xFF);
    assertSame(map.get(BlockHashKey.of(ones)), byHash.get(ones));
  }

  static byte[] randomHash(Random rnd) {
    byte[] h = new byte[32];
    rnd.nextBytes(h);
    return h;
  }

  static BlockInfo block(byte[] hash, int height) {
    return new BlockInfo(hash, height, 0, 1, 0, 8, -1, new byte[80], false, -1);
  }
}
