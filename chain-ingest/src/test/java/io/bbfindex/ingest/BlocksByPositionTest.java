package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.bbfindex.ingest.records.BlockInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The lookup by (file, dataPos) answers as the map it replaced (key {@code file << 32 | dataPos},
 * blocks without data left out, a later block at the same place replacing): for the same offsets in
 * many files, places claimed twice, garbled positions beyond 32 bits, and a multiplier under which
 * every key probes from one slot.
 */
class BlocksByPositionTest {

  @Test
  void answersAsTheMapOverManyFilesAtTheSameOffsets() {
    Random rnd = new Random(29);
    List<BlockInfo> list = new ArrayList<>();
    for (int file = 0; file < 300; file++) {
      long pos = 8;
      for (int k = 0; k < 40; k++) {
        pos += 278 + rnd.nextInt(1000);
        list.add(block(file, pos, list.size()));
      }
    }
    list.add(block(-1, -1, list.size())); // header only: no data, not found by any place
    list.add(block(3, -1, list.size()));
    list.add(block(5, list.get(250).dataPos(), list.size())); // a place claimed twice
    list.add(block(1, 1L << 32, list.size())); // garbled: ORs into the file half, as the key did
    list.add(block(0, (1L << 33) | 17, list.size()));
    BlockInfo[] blocks = list.toArray(new BlockInfo[0]);
    assertAnswersAsMap(blocks, BlocksByPosition.of(blocks), rnd);
    assertAnswersAsMap(blocks, BlocksByPosition.of(blocks, 0x9E37_79B9_7F4A_7C15L), rnd);
  }

  @Test
  void answersAsTheMapWhenEveryKeyStartsAtOneSlot() {
    // multiplier 1: key >>> shift is 0 for every key of file 0 below 2^43, so all probe from slot 0
    Random rnd = new Random(3);
    List<BlockInfo> list = new ArrayList<>();
    for (int k = 0; k < 500; k++) {
      list.add(block(0, rnd.nextInt(1 << 20), k)); // repeats among them too
    }
    BlockInfo[] blocks = list.toArray(new BlockInfo[0]);
    assertAnswersAsMap(blocks, BlocksByPosition.of(blocks, 1), rnd);
  }

  @Test
  void emptyAndSingle() {
    assertNull(BlocksByPosition.of(new BlockInfo[0]).get(0, 8));
    BlockInfo b = block(0, 8, 0);
    BlocksByPosition one = BlocksByPosition.of(new BlockInfo[] {b});
    assertSame(b, one.get(0, 8));
    assertNull(one.get(0, 9));
    assertNull(one.get(1, 8));
  }

  private static void assertAnswersAsMap(BlockInfo[] blocks, BlocksByPosition byPos, Random rnd) {
    Map<Long, BlockInfo> map = new HashMap<>();
    for (BlockInfo b : blocks) {
      if (b.dataPos() >= 0) {
        map.put(((long) b.file() << 32) | b.dataPos(), b);
      }
    }
    for (BlockInfo b : blocks) {
      for (long d = -1; d <= 1; d++) {
        long pos = b.dataPos() + d;
        for (int file = b.file() - 1; file <= b.file() + 1; file++) {
          assertSame(map.get(((long) file << 32) | pos), byPos.get(file, pos), file + ":" + pos);
        }
      }
    }
    for (int i = 0; i < 2000; i++) {
      int file = rnd.nextInt(400) - 50;
      long pos = rnd.nextInt(50_000);
      assertSame(map.get(((long) file << 32) | pos), byPos.get(file, pos), file + ":" + pos);
    }
  }

  private static BlockInfo block(int file, long dataPos, int height) {
    byte[] hash = new byte[32];
    hash[0] = (byte) height;
    hash[1] = (byte) (height >>> 8);
    return new BlockInfo(hash, height, 0, 1, file, dataPos, -1, new byte[80], false, -1);
  }
}
