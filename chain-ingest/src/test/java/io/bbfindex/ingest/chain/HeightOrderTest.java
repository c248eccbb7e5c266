package io.bbfindex.ingest.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bitcoinj.base.Sha256Hash;
import org.junit.jupiter.api.Test;

/**
 * {@link HeightOrder} against what it replaced: a stable sort by height and a map of every hash.
 * Trees with forks, many blocks at one height (past the linear bucket search), a missing parent,
 * and heights garbled near and far (the bucket fallback and the sort fallback).
 */
class HeightOrderTest {

  private final List<DiskBlockIndex> blocks = new ArrayList<>();
  private int nonce;

  private DiskBlockIndex add(DiskBlockIndex parent, int height) {
    byte[] header = new byte[80];
    ByteBuffer le = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    le.putInt(0, 1);
    if (parent != null) {
      System.arraycopy(parent.hash(), 0, header, 4, 32);
    }
    le.putInt(72, 0x207fffff);
    le.putInt(76, nonce++);
    DiskBlockIndex b =
        new DiskBlockIndex(
            Sha256Hash.hashTwice(header),
            259900,
            height,
            BlockStatus.VALID_SCRIPTS | BlockStatus.HAVE_DATA,
            1,
            0,
            8 + nonce,
            -1,
            header);
    blocks.add(b);
    return b;
  }

  private DiskBlockIndex child(DiskBlockIndex parent) {
    return add(parent, parent.height() + 1);
  }

  /** The reference: List.sort is stable, and the map finds the record with the hash anywhere. */
  private static void assertSameAsSortAndMap(List<DiskBlockIndex> in) {
    List<DiskBlockIndex> sorted = new ArrayList<>(in);
    sorted.sort(Comparator.comparingInt(DiskBlockIndex::height));
    Map<ByteBuffer, Integer> byHash = new HashMap<>();
    for (int i = 0; i < sorted.size(); i++) {
      byHash.put(ByteBuffer.wrap(sorted.get(i).hash()), i);
    }
    HeightOrder order = HeightOrder.of(in);
    assertEquals(sorted.size(), order.size());
    for (int i = 0; i < sorted.size(); i++) {
      DiskBlockIndex b = sorted.get(i);
      assertSame(b, order.get(i), "position " + i);
      assertEquals(b.height(), order.height(i));
      assertEquals(b.status(), order.status(i));
      assertEquals(b.txCount(), order.txCount(i));
      assertEquals(0x207fffffL, order.bits(i));
      int expected = byHash.getOrDefault(ByteBuffer.wrap(b.header(), 4, 32), -1);
      assertEquals(expected, order.parentOf(i), "parent of position " + i);
    }
  }

  private List<DiskBlockIndex> shuffled(long seed) {
    List<DiskBlockIndex> s = new ArrayList<>(blocks);
    Collections.shuffle(s, new Random(seed));
    return s;
  }

  private DiskBlockIndex forkyTree() {
    DiskBlockIndex genesis = add(null, 0);
    DiskBlockIndex tip = genesis;
    for (int i = 0; i < 30; i++) {
      tip = child(tip);
    }
    // a fork of equal length from height 10, and a wide height: 12 siblings at height 21
    DiskBlockIndex fork = blocks.get(10);
    for (int i = 0; i < 20; i++) {
      fork = child(fork);
    }
    DiskBlockIndex wide = blocks.get(20);
    for (int i = 0; i < 12; i++) {
      child(child(wide));
    }
    return tip;
  }

  @Test
  void forksEqualHeightsAndWideBucketsMatchSortAndMap() {
    forkyTree();
    for (long seed = 0; seed < 20; seed++) {
      assertSameAsSortAndMap(shuffled(seed));
    }
  }

  @Test
  void missingParentAndGarbledHeightsAreFoundWhereverTheyAre() {
    DiskBlockIndex tip = forkyTree();
    // a block whose parent is not in the index
    DiskBlockIndex orphanParent = add(tip, tip.height() + 1);
    blocks.remove(orphanParent);
    child(orphanParent);
    // a height garbled within the span: its children look one height below it and miss it
    DiskBlockIndex garbled = add(blocks.get(5), 17);
    child(garbled);
    for (long seed = 0; seed < 10; seed++) {
      assertSameAsSortAndMap(shuffled(seed));
    }
    // garbled far out (and negative): the spread is wider than the records, the sort fallback
    add(blocks.get(3), 1_000_000_000);
    add(blocks.get(4), -7);
    for (long seed = 0; seed < 10; seed++) {
      assertSameAsSortAndMap(shuffled(seed));
    }
  }

  @Test
  void emptyAndSingle() {
    assertEquals(0, HeightOrder.of(List.of()).size());
    add(null, 0);
    assertSameAsSortAndMap(blocks);
  }
}
