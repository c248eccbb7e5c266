package io.bbfindex.filters.peers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.bbfindex.filters.hash.HashTestKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * Lock-free inserts from several threads lose nothing: every key is found afterwards, the count is
 * exact, and the table is bit-for-bit the table of the same keys added by one thread (OR commutes,
 * so any lost update shows as a missing bit).
 */
class TwoBitConcurrencyTest {

  private static final int THREADS = 4;

  @Test
  void concurrentInsertsIntoALargeFilterLoseNoKey() throws Exception {
    insertConcurrentlyAndCompare(0xC0C0_1000L, 1 << 16, 3, 100_000);
  }

  /** A small table, so that threads OR into the same words and cache lines all the time. */
  @Test
  void concurrentInsertsIntoHotWordsLoseNoBit() throws Exception {
    for (long round = 0; round < 20; round++) {
      insertConcurrentlyAndCompare(0xC0C0_2000L + round, 1 << 10, 1, 2_000);
    }
  }

  private static void insertConcurrentlyAndCompare(long seed, int words, int k, int keysPerThread)
      throws Exception {
    TwoBitBloomFilter shared = new TwoBitBloomFilter(words, k, 7);
    TwoBitBloomFilter sequential = new TwoBitBloomFilter(words, k, 7);
    byte[][] keys = new byte[THREADS][];
    for (int t = 0; t < THREADS; t++) {
      keys[t] = HashTestKeys.random(seed * 31 + t, keysPerThread);
      for (int i = 0; i < keysPerThread; i++) {
        sequential.add(keys[t], i * 32);
      }
    }
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Thread> threads = new ArrayList<>();
    Throwable[] failure = new Throwable[1];
    for (int t = 0; t < THREADS; t++) {
      byte[] mine = keys[t];
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                  for (int i = 0; i < keysPerThread; i++) {
                    shared.add(mine, i * 32);
                  }
                } catch (Throwable e) {
                  synchronized (failure) {
                    failure[0] = e;
                  }
                }
              },
              "two-bit-writer-" + t);
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (failure[0] != null) {
      throw new AssertionError("writer failed" + HashTestKeys.seedNote(seed), failure[0]);
    }
    assertEquals((long) THREADS * keysPerThread, shared.count(), HashTestKeys.seedNote(seed));
    for (int t = 0; t < THREADS; t++) {
      for (int i = 0; i < keysPerThread; i++) {
        if (!shared.mightContain(keys[t], i * 32)) {
          fail("thread " + t + " key " + i + " lost" + HashTestKeys.seedNote(seed));
        }
      }
    }
    assertArrayEquals(
        sequential.copyOfWords(),
        shared.copyOfWords(),
        "concurrent table differs from the sequential one" + HashTestKeys.seedNote(seed));
  }
}
