package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.Filled;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The binary batches on two filter stores like for like: both servers up at once, the batches of
 * fixed and of fresh absent ids ({@link #TARGETS}) run on one store then the other in each round,
 * the order alternating round by round (small first, then big first, ...), so a change of the
 * machine's load hits both stores alike; each round's big-over-small ratio is printed, and the
 * headline is the median of those per-round ratios. WHY: with the stores' servers run one after the
 * other, two {@code --quick} runs gave 0.648 and 2.07 for the same ratio as the load changed.
 *
 * <p>Every timed run also reads what it cost: wrk's own CPU (bash {@code times}: the client's share
 * of the 2 cores, fixed and fresh bodies alike) and the server's split of that run's batches by
 * phase ({@code bbf_http_batch_phase_seconds} read before and after it): the fixed and fresh
 * batches' costs apart, per store.
 */
final class StorePairRounds {

  static final List<String> TARGETS =
      List.of(HttpBench.NEG_BATCH_BINARY, HttpBench.NEG_BATCH_FRESH);

  /** One server of the pair: its data set's name and its base URL. */
  record Side(String dataset, String url) {}

  /** One timed run: wrk's figures, wrk's CPU seconds, the server's phase totals of the run. */
  record Cell(WrkRun wrk, double clientCpuSeconds, BatchPhaseSplit.Totals server) {}

  /**
   * The cells by data set and target, in round order, and each round's big-over-small ids/s by
   * target.
   */
  record Result(Map<String, Map<String, List<Cell>>> cells, Map<String, List<Double>> ratios) {

    List<WrkRun> runs(String dataset, String target) {
      return cells(dataset, target).stream().map(Cell::wrk).toList();
    }

    List<Cell> cells(String dataset, String target) {
      return Filled.entry(Filled.entry(cells, dataset), target);
    }

    /** The median of the rounds' big-over-small ratios of {@code target}. */
    double medianRatio(String target) {
      return BenchReport.median(
          Filled.entry(ratios, target).stream().mapToDouble(Double::doubleValue).toArray());
    }
  }

  private StorePairRounds() {}

  /**
   * Warms both servers up on every target, then runs {@code c.pairRounds()} rounds of {@code
   * c.pairSeconds()} s per target and store, printing each round.
   */
  static Result run(
      HttpBench.Config c,
      BenchReport r,
      HttpBench.Wrk tool,
      Side small,
      Side big,
      Map<String, Path> files)
      throws IOException, InterruptedException {
    for (Side s : List.of(small, big)) {
      for (String t : TARGETS) {
        HttpBench.runOne(tool, t, s.url(), files, c, c.warmupSeconds());
      }
    }
    Map<String, Map<String, List<Cell>>> cells = new LinkedHashMap<>();
    Map<String, List<Double>> ratios = new LinkedHashMap<>();
    for (int round = 0; round < c.pairRounds(); round++) {
      List<Side> order = round % 2 == 0 ? List.of(small, big) : List.of(big, small);
      Map<String, Map<String, Cell>> now = new LinkedHashMap<>();
      for (Side s : order) {
        for (String t : TARGETS) {
          Cell cell = timed(c, tool, s.url(), t, files);
          now.computeIfAbsent(s.dataset(), k -> new LinkedHashMap<>()).put(t, cell);
          cells
              .computeIfAbsent(s.dataset(), k -> new LinkedHashMap<>())
              .computeIfAbsent(t, k -> new ArrayList<>())
              .add(cell);
        }
      }
      printRound(r, round, order, small, big, now, ratios);
    }
    return new Result(cells, ratios);
  }

  /** One run of {@code target} on {@code url}, with wrk's CPU and the server's phase totals. */
  private static Cell timed(
      HttpBench.Config c, HttpBench.Wrk tool, String url, String target, Map<String, Path> files)
      throws IOException, InterruptedException {
    BatchPhaseSplit.Totals before = BatchPhaseSplit.Totals.read(url, "binary");
    FreshBatch.Run run = HttpBench.timedRun(tool, target, url, files, c, c.pairSeconds());
    BatchPhaseSplit.Totals after = BatchPhaseSplit.Totals.read(url, "binary");
    return new Cell(run.wrk(), run.clientCpuSeconds(), after.minus(before));
  }

  private static void printRound(
      BenchReport r,
      int round,
      List<Side> order,
      Side small,
      Side big,
      Map<String, Map<String, Cell>> now,
      Map<String, List<Double>> ratios) {
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT, "pair round %d (%s first):", round + 1, order.getFirst().dataset()));
    for (String t : TARGETS) {
      double s = ids(Filled.entry(Filled.entry(now, small.dataset()), t));
      double b = ids(Filled.entry(Filled.entry(now, big.dataset()), t));
      ratios.computeIfAbsent(t, k -> new ArrayList<>()).add(b / s);
      line.append(
          String.format(
              Locale.ROOT,
              " %s: %s %,.0f, %s %,.0f ids/s, ratio %.3f;",
              t,
              small.dataset(),
              s,
              big.dataset(),
              b,
              b / s));
    }
    r.line("%s", line.substring(0, line.length() - 1));
  }

  private static double ids(Cell cell) {
    return cell.wrk().requestsPerSecond() * HttpBench.idsPerRequest(HttpBench.NEG_BATCH_BINARY);
  }

  /**
   * What each store's fixed and fresh batches cost, over every round: wrk's CPU a request, and the
   * server's mean µs a batch by phase (the run's own batches only).
   */
  static void printCosts(BenchReport r, Result res, List<Side> sides) {
    List<List<String>> rows = new ArrayList<>();
    for (Side s : sides) {
      for (String t : TARGETS) {
        BatchPhaseSplit.Totals server =
            res.cells(s.dataset(), t).stream()
                .map(Cell::server)
                .reduce(BatchPhaseSplit.Totals::plus)
                .orElseThrow();
        List<String> row = new ArrayList<>(List.of(s.dataset(), t));
        row.add(String.format(Locale.ROOT, "%,.0f", clientMicros(res, s.dataset(), t)));
        row.add(String.format(Locale.ROOT, "%,.0f", server.batches()));
        for (int p = 0; p < BatchPhaseSplit.PHASES.size(); p++) {
          row.add(String.format(Locale.ROOT, "%,.0f", server.micros(p)));
        }
        rows.add(row);
      }
    }
    r.table(
        "the pair's runs, what a batch cost: wrk's CPU (user + system, every thread) a request,"
            + " and the server's mean µs a batch by phase (bbf_http_batch_phase_seconds, read"
            + " before and after each run)",
        List.of(
            "store",
            "target",
            "wrk µs CPU",
            "batches",
            "parse",
            "filter probe",
            "index reads",
            "write"),
        rows);
  }

  /** wrk's CPU µs a request over every round of {@code target} on {@code dataset}. */
  static double clientMicros(Result res, String dataset, String target) {
    List<Cell> cells = res.cells(dataset, target);
    double cpu = cells.stream().mapToDouble(Cell::clientCpuSeconds).sum();
    long requests = cells.stream().mapToLong(x -> x.wrk().requests()).sum();
    return requests == 0 ? Double.NaN : 1e6 * cpu / requests;
  }
}
