package io.bbfindex.filters;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Measured false-positive rate against the paper's eq. 3, for both word sizes, every k and 4, 8, 10
 * and 16 bits per key. The bound is binomial: |measured - model| <= 4.5 sigma + 3 % of the model,
 * sigma = sqrt(p (1 - p) / trials). The 3 % covers the variation between filters (one filter's fill
 * differs from the average one the model describes; with at least 8192 groups its standard
 * deviation is about 1 % of p). The table is printed for the record.
 */
class BlockedBloomFalsePositiveRateTest {

  private static final long M_BITS = 1L << 22;
  private static final double SIGMAS = 4.5;
  private static final double MODEL_SLACK = 0.03;

  private record Row(String label, BbfGeometry g, long n, long trials, double model, long hits) {
    double measured() {
      return (double) hits / trials;
    }

    double sigma() {
      return Math.sqrt(model * (1 - model) / trials);
    }

    double z() {
      return (measured() - model) / sigma();
    }

    boolean withinBound() {
      return Math.abs(measured() - model) <= SIGMAS * sigma() + MODEL_SLACK * model;
    }
  }

  private static Row measure(
      String label, BbfGeometry g, long salt, byte[] members, byte[] probes) {
    try (BlockedBloomFilter f = BlockedBloomFilter.create(g, salt)) {
      int n = TestKeys.count(members);
      for (int i = 0; i < n; i++) {
        f.add(members, i * 32);
      }
      int trials = TestKeys.count(probes);
      boolean[] out = new boolean[trials];
      f.mightContainBatch(probes, trials, out);
      long hits = 0;
      for (boolean b : out) {
        hits += b ? 1 : 0;
      }
      return new Row(label, g, n, trials, f.modelledFpr(), hits);
    }
  }

  private static void printAndCheck(String title, List<Row> rows) {
    StringBuilder table = new StringBuilder("\n" + title + "\n");
    table.append(
        String.format(
            "%-10s %3s %3s %10s %8s %9s %10s %10s %7s%n",
            "keys", "lw", "k", "bits/key", "r", "trials", "model", "measured", "z"));
    for (Row r : rows) {
      table.append(
          String.format(
              "%-10s %3d %3d %10.2f %8d %9d %10.6f %10.6f %7.2f%s%n",
              r.label(),
              r.g().wordBits(),
              r.g().k(),
              (double) r.g().bitSize() / r.n(),
              r.g().groups(),
              r.trials(),
              r.model(),
              r.measured(),
              r.z(),
              r.withinBound() ? "" : "  <-- outside bound"));
    }
    System.out.print(table);
    for (Row r : rows) {
      assertTrue(r.withinBound(), "FPR outside the binomial bound:" + table);
    }
  }

  @Test
  void measuredFprFollowsEquationThree() {
    List<Row> rows = new ArrayList<>();
    long seed = 31337;
    for (int[] shape : TestKeys.shapes()) {
      for (int bitsPerKey : new int[] {4, 8, 10, 16}) {
        BbfGeometry g = new BbfGeometry(M_BITS / (shape[0] * shape[1]), shape[0], shape[1]);
        int n = (int) (M_BITS / bitsPerKey);
        double p = BbfSizing.modelFpr(n, g);
        int trials = (int) Math.max(200_000, Math.min(3_000_000, 400 / p));
        seed++;
        rows.add(measure("random", g, 0, TestKeys.random(seed, n), TestKeys.random(~seed, trials)));
      }
    }
    // Block-hash-like keys (zero bytes 22..31) and a salted filter behave the same.
    BbfGeometry g = new BbfGeometry(M_BITS / 512, 8, 64);
    int n = (int) (M_BITS / 10);
    rows.add(
        measure(
            "zero-tail",
            g,
            0,
            TestKeys.blockHashLike(7, n, 10),
            TestKeys.blockHashLike(8, 400_000, 10)));
    rows.add(measure("salted", g, 99, TestKeys.random(9, n), TestKeys.random(10, 400_000)));
    printAndCheck("BBF false-positive rate: measured vs eq. 3 (m = 2^22 bits)", rows);
  }

  /**
   * Format v2 with group counts that are not powers of two (multiply-shift), every shape, at 4, 8,
   * 10 and 16 bits per key: the same binomial bound. r is odd (so never a power of two) and the key
   * count follows from it; plus one v1 (mask) filter of the same size for comparison.
   */
  @Test
  void measuredFprFollowsEquationThreeForAnyGroupCount() {
    List<Row> rows = new ArrayList<>();
    long seed = 4242;
    for (int[] shape : TestKeys.shapes()) {
      for (int bitsPerKey : new int[] {4, 8, 10, 16}) {
        long groups = (M_BITS * 3 / 4 / (shape[0] * shape[1])) | 1;
        BbfGeometry g = new BbfGeometry(groups, shape[0], shape[1]);
        int n = (int) (g.bitSize() / bitsPerKey);
        double p = BbfSizing.modelFpr(n, g);
        int trials = (int) Math.max(200_000, Math.min(2_000_000, 400 / p));
        seed++;
        rows.add(measure("r odd", g, 0, TestKeys.random(seed, n), TestKeys.random(~seed, trials)));
      }
    }
    BbfGeometry v1 = BbfGeometry.v1(M_BITS / 512, 8, 64);
    int n = (int) (M_BITS / 10);
    rows.add(measure("v1 mask", v1, 0, TestKeys.random(5, n), TestKeys.random(6, 400_000)));
    BbfGeometry odd = new BbfGeometry(M_BITS / 512 - 1, 8, 64);
    rows.add(
        measure("r odd, salted", odd, 77, TestKeys.random(11, n), TestKeys.random(12, 400_000)));
    rows.add(
        measure(
            "r odd, zero-tail",
            odd,
            0,
            TestKeys.blockHashLike(13, n, 10),
            TestKeys.blockHashLike(14, 400_000, 10)));
    printAndCheck(
        "BBF v2 false-positive rate, r not a power of two: measured vs eq. 3 (m about 3 * 2^20)",
        rows);
  }

  /** Real mainnet txids from the fixtures: half inserted, the other half probed. */
  @Test
  void realMainnetTxids() throws IOException {
    String dir = System.getProperty("bbf.fixtures");
    Assumptions.assumeTrue(dir != null, "bbf.fixtures not set");
    Path tsv = Path.of(dir, "mainnet-real-txids.tsv.gz");
    Assumptions.assumeTrue(Files.isRegularFile(tsv), tsv + " missing");
    List<byte[]> txids = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(tsv)), StandardCharsets.US_ASCII))) {
      r.readLine(); // header
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        byte[] display = HexFormat.of().parseHex(line.substring(0, 64));
        byte[] internal = new byte[32];
        for (int i = 0; i < 32; i++) {
          internal[i] = display[31 - i];
        }
        txids.add(internal);
      }
    }
    int half = txids.size() / 2;
    byte[] members = new byte[half * 32];
    byte[] probes = new byte[(txids.size() - half) * 32];
    for (int i = 0; i < txids.size(); i++) {
      System.arraycopy(
          txids.get(i), 0, i < half ? members : probes, (i < half ? i : i - half) * 32, 32);
    }
    List<Row> rows = new ArrayList<>();
    for (int[] shape : new int[][] {{8, 64}, {4, 32}}) {
      // about 6 bits per key so that the probes see enough false positives to measure
      BbfGeometry g = new BbfGeometry((1 << 18) / (shape[0] * shape[1]), shape[0], shape[1]);
      rows.add(measure("mainnet", g, 0, members, probes));
    }
    printAndCheck("Real mainnet txids (fixtures/mainnet-real-txids.tsv.gz)", rows);
  }
}
