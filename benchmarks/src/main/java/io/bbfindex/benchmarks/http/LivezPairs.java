package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.Filled;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The headline ratio of the HTTP suite, negative lookups over {@code /livez} requests per second,
 * from adjacent pairs of runs rather than from two medians taken minutes apart.
 *
 * <p>WHY: wrk and the server share the machine's two cores, and what else runs there drifts within
 * a suite (the batch runs' garbage, the page cache, neighbours on the host): the same server gave
 * 0.86 in one run and 0.93 in the next with the rounds' medians. Each pair runs the two targets
 * back to back (their order alternating), so a drift moves both; the ratio is the median of the
 * pairs' ratios: the rounds' own pairs and {@link #EXTRA_PAIRS} more.
 */
final class LivezPairs {

  /** Pairs run after the rounds, in addition to each round's pair. */
  static final int EXTRA_PAIRS = 5;

  private LivezPairs() {}

  /** The pairs' ratios: median, spread, and how many. */
  record Result(double median, double min, double max, int pairs) {
    void print(BenchReport r, String dataset) {
      r.line(
          "%s: negative lookups reach %.1f%% of /livez requests/s (median of %d adjacent pairs,"
              + " %.1f-%.1f%%; target >= 90%%: %s)",
          dataset, 100 * median, pairs, 100 * min, 100 * max, median >= 0.9 ? "met" : "MISSED");
    }
  }

  /**
   * Runs {@link #EXTRA_PAIRS} more pairs of {@code seconds} each and returns the ratios of those
   * and of the rounds' pairs in {@code runs} (the rounds ran livez and negative next to each
   * other).
   */
  static Result measure(
      HttpBench.Wrk tool,
      String baseUrl,
      Map<String, Path> files,
      HttpBench.Config c,
      Map<String, List<WrkRun>> runs,
      int seconds)
      throws IOException, InterruptedException {
    List<WrkRun> livez = Filled.entry(runs, HttpBench.LIVEZ);
    List<WrkRun> negative = Filled.entry(runs, HttpBench.NEGATIVE);
    int rounds = Math.min(livez.size(), negative.size());
    double[] ratios = new double[rounds + EXTRA_PAIRS];
    for (int i = 0; i < rounds; i++) {
      ratios[i] = negative.get(i).requestsPerSecond() / livez.get(i).requestsPerSecond();
    }
    for (int i = 0; i < EXTRA_PAIRS; i++) {
      boolean livezFirst = i % 2 == 0;
      String firstTarget = livezFirst ? HttpBench.LIVEZ : HttpBench.NEGATIVE;
      String secondTarget = livezFirst ? HttpBench.NEGATIVE : HttpBench.LIVEZ;
      WrkRun first = HttpBench.runOne(tool, firstTarget, baseUrl, files, c, seconds);
      WrkRun second = HttpBench.runOne(tool, secondTarget, baseUrl, files, c, seconds);
      WrkRun l = livezFirst ? first : second;
      WrkRun n = livezFirst ? second : first;
      ratios[rounds + i] = n.requestsPerSecond() / l.requestsPerSecond();
    }
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    return new Result(
        BenchReport.median(ratios), sorted[0], sorted[sorted.length - 1], ratios.length);
  }
}
