package io.bbfindex.benchmarks.store;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.ThreadClock;
import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BlockedBloomFilter;
import java.util.List;
import java.util.Locale;

/**
 * What the secret per-store salt costs a probe: two summary filters of the store's geometry, one
 * unsalted (the key's own bits pick the group and the bits) and one salted (every lane mixed with
 * the salt by fmix64 first), the same positives inserted, timed over the same negatives and
 * positives, one thread. The salted one is what {@code ingest} and {@code serve} build by default.
 */
final class SaltCost {
  private SaltCost() {}

  static void measure(
      StoreBench.Config c, BenchReport r, BbfGeometry g, byte[][] pos, byte[][] neg) {
    try (BlockedBloomFilter unsalted = BlockedBloomFilter.create(g, 0);
        BlockedBloomFilter salted = BlockedBloomFilter.create(g, 0x5A17_5EC2_E7L)) {
      for (byte[] k : pos) {
        unsalted.add(k, 0);
        salted.add(k, 0);
      }
      BlockedBloomFilter[] filters = {unsalted, salted};
      byte[][][] queries = {neg, pos};
      double[][][] cpu = new double[2][2][c.rounds()];
      long sink = 0;
      for (int round = -1; round < c.rounds(); round++) { // round -1 warms up
        for (int f = 0; f < 2; f++) {
          for (int q = 0; q < 2; q++) {
            long ops = 0;
            ThreadClock start = ThreadClock.now();
            ThreadClock took;
            do {
              for (byte[] k : queries[q]) {
                sink += filters[f].mightContain(k, 0) ? 1 : 0;
              }
              ops += queries[q].length;
              took = ThreadClock.now().since(start);
            } while (took.wallNanos() < c.minNanosPerRound() / 4);
            if (round >= 0) {
              cpu[f][q][round] = took.perCpuSecond(ops);
            }
          }
        }
      }
      double uNeg = 1e9 / BenchReport.median(cpu[0][0]);
      double sNeg = 1e9 / BenchReport.median(cpu[1][0]);
      double uPos = 1e9 / BenchReport.median(cpu[0][1]);
      double sPos = 1e9 / BenchReport.median(cpu[1][1]);
      r.table(
          "summary probe, salted vs unsalted ("
              + g
              + ", "
              + BenchReport.count(pos.length)
              + " keys inserted, kernel "
              + unsalted.kernel()
              + "; median CPU ns of "
              + c.rounds()
              + " rounds)",
          List.of("derivation", "negative ns/probe", "positive ns/probe"),
          List.of(
              List.of("unsalted (--unsalted)", ns(uNeg), ns(uPos)),
              List.of("salted (default)", ns(sNeg), ns(sPos))));
      r.line("(%d maybes counted, to keep the probes live)", sink);
      r.summary("unsalted_probe_ns_neg", uNeg);
      r.summary("salted_probe_ns_neg", sNeg);
      r.summary("salted_over_unsalted_probe_neg", sNeg / uNeg);
      r.summary("salted_over_unsalted_probe_pos", sPos / uPos);
    }
  }

  private static String ns(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
