package io.bbfindex.benchmarks.store;

import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.ingest.store.FilterStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a negative lookup's time goes through the product path: the negatives split by the
 * summary's answer, each part timed on its own, one thread, per CPU-second.
 *
 * <ol>
 *   <li>the store's summary probe alone ({@link FilterStore#mightContainTx}) over every negative;
 *   <li>{@link LookupService#tx} over the negatives the summary answers "no": probe plus what the
 *       service adds (counters, the empty answer);
 *   <li>{@link LookupService#tx} over the summary's false "maybe"s: the index read that refutes
 *       one.
 * </ol>
 *
 * A negative's mean cost is then (2) + FPR x ((3) - (2)): the table prints that sum beside the
 * measured mean, so the split is checked by its own total. WHY this table: the mean is dominated by
 * the rare false "maybe"s (one LevelDB read, microseconds) rather than by the probe, and only a
 * split shows it.
 */
final class NegativeCost {
  private NegativeCost() {}

  /**
   * @param measuredNegNs the mean CPU ns of a negative through the product path, measured by the
   *     caller over all negatives
   */
  static void measure(
      StoreBench.Config c,
      BenchReport r,
      FilterStore store,
      LookupService lookups,
      byte[][] neg,
      double measuredNegNs) {
    List<byte[]> no = new ArrayList<>();
    List<byte[]> maybe = new ArrayList<>();
    for (byte[] k : neg) {
      (store.mightContainTx(k, 0) ? maybe : no).add(k);
    }
    byte[][] noKeys = no.toArray(new byte[0][]);
    byte[][] maybeKeys = maybe.toArray(new byte[0][]);
    double[][] cpu = timeParts(c, store, lookups, neg, noKeys, maybeKeys);
    double probeNs = 1e9 / BenchReport.median(cpu[0]);
    double noNs = 1e9 / BenchReport.median(cpu[1]);
    double maybeNs = maybeKeys.length == 0 ? 0 : 1e9 / BenchReport.median(cpu[2]);
    double fpr = (double) maybeKeys.length / neg.length;
    double fpShare = fpr * (maybeNs - noNs);
    r.table(
        "where a negative's time goes through LookupService ("
            + BenchReport.count(neg.length)
            + " negatives: "
            + BenchReport.count(noKeys.length)
            + " answered \"no\" by the summary, "
            + BenchReport.count(maybeKeys.length)
            + " false \"maybe\"s; median CPU ns of "
            + c.rounds()
            + " rounds)",
        List.of("part", "CPU ns", "share of a negative"),
        List.of(
            List.of(
                "summary probe (FilterStore.mightContainTx)",
                fmt(probeNs),
                share(probeNs, measuredNegNs)),
            List.of(
                "LookupService on top of a \"no\" (counters, empty answer)",
                fmt(noNs - probeNs),
                share(noNs - probeNs, measuredNegNs)),
            List.of(
                String.format(
                    Locale.ROOT,
                    "false \"maybe\"s: FPR %.4f x %s ns a refutation (Bloom block, else LevelDB)",
                    fpr,
                    fmt(maybeNs - noNs)),
                fmt(fpShare),
                share(fpShare, measuredNegNs)),
            List.of("sum of the parts", fmt(noNs + fpShare), share(noNs + fpShare, measuredNegNs)),
            List.of("measured mean (the lookup table's row)", fmt(measuredNegNs), "100%")));
    r.summary("neg_ns_summary_probe", probeNs);
    r.summary("neg_ns_filter_no_through_lookup_service", noNs);
    r.summary("neg_ns_false_maybe_share", fpShare);
    r.summary("neg_observed_fpr", fpr);
  }

  /**
   * Lookups per CPU-second of each part, by round: the probe alone over every negative, the service
   * over the summary's "no"s, the service over its false "maybe"s (NaN without one).
   */
  private static double[][] timeParts(
      StoreBench.Config c,
      FilterStore store,
      LookupService lookups,
      byte[][] neg,
      byte[][] noKeys,
      byte[][] maybeKeys) {
    double[][] cpu = new double[3][c.rounds()];
    long[] sink = new long[1];
    for (int round = -1; round < c.rounds(); round++) { // round -1 warms up
      StoreBench.Timed probe =
          StoreBench.timed(
              neg,
              k -> {
                sink[0] += store.mightContainTx(k, 0) ? 1 : 0;
                return false;
              },
              c.minNanosPerRound() / 2,
              false);
      StoreBench.Timed filterNo =
          StoreBench.timed(noKeys, k -> lookups.tx(k).isPresent(), c.minNanosPerRound() / 2, false);
      StoreBench.Timed refuted =
          maybeKeys.length == 0
              ? null
              : StoreBench.timed(
                  maybeKeys, k -> lookups.tx(k).isPresent(), c.minNanosPerRound() / 4, false);
      if (round >= 0) {
        cpu[0][round] = probe.perCpuSecond();
        cpu[1][round] = filterNo.perCpuSecond();
        cpu[2][round] = refuted == null ? Double.NaN : refuted.perCpuSecond();
      }
    }
    if (sink[0] < 0) {
      throw new AssertionError("unreachable: keeps the probes live");
    }
    return cpu;
  }

  private static String fmt(double ns) {
    return String.format(Locale.ROOT, "%.1f", ns);
  }

  private static String share(double part, double whole) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * part / whole);
  }
}
