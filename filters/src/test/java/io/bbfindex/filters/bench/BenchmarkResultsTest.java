package io.bbfindex.filters.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bbfindex.filters.BlockedBloomFilter;
import java.awt.image.BufferedImage;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checks that every JMH benchmark measures what it claims, on small fixed datasets (STYLE habit
 * 14): the state classes give member probes that are all present and foreign probes that are all
 * absent, each benchmark method returns and counts the expected hits, and the non-JMH experiments
 * of {@code bench paper} agree with their models. The benchmark sources (src/jmh/java) are a test
 * source root of the default build, so these call the very methods JMH runs.
 */
class BenchmarkResultsTest {

  private static final int N = 3_000;

  @Test
  void keysAreDeterministicAndMemberAndForeignSetsAreDisjoint() {
    byte[] members = BenchKeys.keys(BenchKeys.MEMBER_SEED, 0, N);
    assertArrayEquals(members, BenchKeys.keys(BenchKeys.MEMBER_SEED, 0, N), "same seed, same keys");
    byte[] tail = BenchKeys.keys(BenchKeys.MEMBER_SEED, 1000, 10);
    assertArrayEquals(
        java.util.Arrays.copyOfRange(members, 1000 * 32, 1010 * 32),
        tail,
        "key i depends only on (seed, i)");
    Set<ByteBuffer> memberSet = set(members);
    assertEquals(N, memberSet.size(), "member keys are distinct");
    for (byte[] other :
        new byte[][] {
          BenchKeys.keys(BenchKeys.FOREIGN_SEED, 0, N), BenchKeys.keys(BenchKeys.EXTRA_SEED, 0, N)
        }) {
      for (ByteBuffer k : set(other)) {
        assertFalse(memberSet.contains(k), "a foreign or extra key is a member");
      }
    }
    byte[] picked = BenchKeys.randomMembers(BenchKeys.MEMBER_SEED, N, 500, 7);
    assertTrue(memberSet.containsAll(set(picked)), "randomMembers picks members only");
  }

  @ParameterizedTest
  @EnumSource(BenchFilter.class)
  void filterBenchmarkCountsEveryMemberAsHitAndFewForeignKeys(BenchFilter type) throws Exception {
    assumeVectorIfNeeded(type.name());
    FilterBenchmark.FilterState s = new FilterBenchmark.FilterState();
    s.type = type.name();
    s.n = N;
    s.setUp();
    try {
      assertEquals(N, s.filter.count(), "the state holds n members");
      FilterBenchmark bench = new FilterBenchmark();
      Hits h = new Hits();
      for (int i = 0; i < ProbeState.PROBES; i++) {
        assertTrue(bench.positive(s, h), () -> type + ": a member key was reported absent");
      }
      assertEquals(ProbeState.PROBES, h.hits);
      assertEquals(ProbeState.PROBES, h.probes);

      h.reset();
      long falsePositives = 0;
      for (int i = 0; i < ProbeState.PROBES; i++) {
        falsePositives += bench.negative(s, h) ? 1 : 0;
      }
      assertEquals(falsePositives, h.hits, "hits counted as returned");
      double fpr = (double) falsePositives / ProbeState.PROBES;
      assertTrue(fpr < 0.06, type + ": foreign keys hit " + fpr + " of the time at ~10 bits a key");

      h.reset();
      for (int b = 0; b < ProbeState.BATCHES; b++) {
        assertEquals(ProbeState.BATCH, bench.positiveBatch(s, h), type + ": batch of members");
      }
      assertEquals(ProbeState.PROBES, h.hits);
      h.reset();
      long batchFalsePositives = 0;
      for (int b = 0; b < ProbeState.BATCHES; b++) {
        batchFalsePositives += bench.negativeBatch(s, h);
      }
      assertEquals(
          falsePositives,
          batchFalsePositives,
          type + ": the batch path must give the single-key answers on the same keys");

      long before = s.filter.count();
      int firstExtra = s.nextIndex();
      for (int i = 0; i < 100; i++) {
        assertTrue(bench.insert(s), type + ": insert refused");
      }
      if (s.removeAfterInsert) {
        assertEquals(before, s.filter.count(), "cuckoo insert + remove keeps the load");
      } else {
        assertEquals(before + 100, s.filter.count());
        for (int i = 0; i < 100; i++) {
          assertTrue(
              s.filter.mightContain(s.extras, (firstExtra + i) * 32),
              type + ": inserted key absent");
        }
      }
    } finally {
      s.tearDown();
    }
  }

  @Test
  void batchShapeExperimentRebuildsTheRealBbfLayout() throws Exception {
    assumeVectorIfNeeded("BBF_SIMD");
    BatchShapeBenchmark.ShapeState shape = new BatchShapeBenchmark.ShapeState();
    shape.n = N;
    shape.setUp();
    FilterBenchmark.FilterState real = new FilterBenchmark.FilterState();
    real.type = "BBF_SIMD";
    real.n = N;
    real.setUp();
    try {
      boolean[] expected = new boolean[ProbeState.BATCH];
      boolean[] single = new boolean[ProbeState.BATCH];
      boolean[] touch = new boolean[ProbeState.BATCH];
      boolean[] lanes = new boolean[ProbeState.BATCH];
      for (byte[][] batches : new byte[][][] {real.positiveBatches, real.negativeBatches}) {
        for (byte[] batch : batches) {
          real.filter.mightContainBatch(batch, ProbeState.BATCH, expected);
          BatchShapeBenchmark.singlePass(shape, batch, ProbeState.BATCH, single);
          BatchShapeBenchmark.touchThenTest(shape, batch, ProbeState.BATCH, touch);
          BatchShapeBenchmark.laneBroadcast(shape, batch, ProbeState.BATCH, lanes);
          assertArrayEquals(expected, single, "singlePass vs BlockedBloomFilter");
          assertArrayEquals(expected, touch, "touchThenTest vs BlockedBloomFilter");
          assertArrayEquals(expected, lanes, "laneBroadcast vs BlockedBloomFilter");
        }
      }
    } finally {
      shape.tearDown();
      real.tearDown();
    }
  }

  @Test
  void lineReadReadsTheLineTheKeyPicks() {
    LineReadBenchmark.LineState s = new LineReadBenchmark.LineState();
    s.bytes = 1 << 16;
    s.setUp();
    try {
      LineReadBenchmark bench = new LineReadBenchmark();
      long first = bench.lineRead(s);
      long expected =
          s.lines.get(
              java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(
                  java.nio.ByteOrder.LITTLE_ENDIAN),
              (BenchKeys.lane2(s.negatives, 0) & (s.bytes / 64 - 1)) * 64);
      assertEquals(expected, first, "line of key 0");
      long xor = 0;
      byte[] batch0 = s.negativeBatches[1]; // the cursor has moved on once: batch index 1
      for (int i = 0; i < ProbeState.BATCH; i++) {
        xor ^= s.read(batch0, i * 32);
      }
      assertEquals(xor, bench.lineReadBatch(s));
      assertNotEquals(0, xor, "the array is random-filled");
    } finally {
      s.tearDown();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"BLOOM", "OMBF", "BBF_SCALAR", "BBF_SIMD"})
  void paperBenchmarkAtEveryK(String type) throws Exception {
    assumeVectorIfNeeded(type);
    for (int k : new int[] {2, 4, 8, 16}) {
      PaperBenchmark.PaperState s = new PaperBenchmark.PaperState();
      s.type = type;
      s.k = k;
      s.mBits = 100_000;
      s.fill = 0.1;
      s.setUp();
      try {
        assertEquals(10_000, s.filter.count());
        PaperBenchmark bench = new PaperBenchmark();
        Hits h = new Hits();
        int calls = 20; // 20 x 1,024 lookups
        int probes = calls * ProbeState.BATCH;
        for (int i = 0; i < calls; i++) {
          assertEquals(
              ProbeState.BATCH, bench.positive(s, h), type + " k=" + k + ": a call's hits");
        }
        assertEquals(probes, h.hits, type + " k=" + k + ": members reported absent");
        assertEquals(probes, h.probes);
        h.reset();
        for (int i = 0; i < calls; i++) {
          bench.negative(s, h);
        }
        assertEquals(probes, h.probes);
        // F = 0.1: the worst of these shapes (BBF k = 2 or 16) stays under 5 %.
        assertTrue(
            h.hits < probes / 20,
            type + " k=" + k + ": " + h.hits + " of " + probes + " foreign keys hit");
      } finally {
        s.tearDown();
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {32, 64})
  void extraBitsReproduceThePaperAndTheMeasurementFollowsTheModel(int wordBits) {
    FprExperiment.ExtraBits e = FprExperiment.extraBits(wordBits, 4, 250_000);
    assertEquals(e.paperPct(), e.modelPct(), 0.5, "eq. 3 at the paper's setting");
    assertEquals(e.paperFpr(), e.modelFprPaperSetting(), 0.0005, "p_BBF at the paper's setting");
    // Same load per group as the paper's setting: the measured figure is within a few points.
    assertEquals(e.modelPct(), e.measuredPct(), 3.0, "measured extra bits vs model");
    assertEquals(
        e.measuredFpr(),
        e.bloomMeasuredFpr(),
        0.25 * e.measuredFpr(),
        "the BF of the computed size reaches the BBF's measured rate");
  }

  @Test
  void chartWritesAReadablePng(@TempDir Path dir) throws Exception {
    Path png = dir.resolve("c.png");
    Chart c =
        new Chart("t", "x", "y", true)
            .add(
                new Chart.Series(
                    "a", Chart.BLUE, false, true, new double[] {1, 2}, new double[] {1e-3, 1e-2}))
            .add(
                new Chart.Series(
                    "b",
                    Chart.RED,
                    true,
                    false,
                    new double[] {1, 2},
                    new double[] {2e-3, Double.NaN}))
            .xTicks(new double[] {1, 2}, new String[] {"1", "2"})
            .marker(1.5, "L1");
    Chart.write(png, 300, 200, c, c);
    BufferedImage image = ImageIO.read(png.toFile());
    assertEquals(600, image.getWidth());
    assertEquals(200, image.getHeight());
  }

  private static void assumeVectorIfNeeded(String type) {
    if (type.startsWith("BBF_SIMD")) {
      assumeTrue(
          BlockedBloomFilter.isKernelAvailable(BlockedBloomFilter.Kernel.VECTOR),
          "the Vector API is not available in this run (the scalar surefire execution)");
    }
  }

  private static Set<ByteBuffer> set(byte[] flat) {
    Set<ByteBuffer> s = new HashSet<>();
    for (int i = 0; i < flat.length; i += 32) {
      s.add(ByteBuffer.wrap(java.util.Arrays.copyOfRange(flat, i, i + 32)));
    }
    return s;
  }
}
