package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The batch route's own split of its time, as the server measured it: {@code
 * bbf_http_batch_phase_seconds{form, phase}} read from {@code /metrics} after the runs, one row per
 * body form (every batch of that form in the server run, warm-up included): the mean time a batch
 * spent parsing the body, probing the filter, reading the index for the "maybe"s and writing the
 * answer, and each phase's share.
 */
final class BatchPhaseSplit {
  static final List<String> PHASES = List.of("parse", "probe", "read", "write");

  private static final Pattern SAMPLE =
      Pattern.compile(
          "^bbf_http_batch_phase_seconds_(sum|count)\\{([^}]*)}\\s+(\\S+)", Pattern.MULTILINE);
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  private BatchPhaseSplit() {}

  /** Scrapes {@code baseUrl/metrics} and prints the split of each form that served a batch. */
  static void print(BenchReport r, String dataset, String baseUrl)
      throws IOException, InterruptedException {
    String text = metrics(baseUrl);
    Map<String, double[]> sums = new TreeMap<>(); // form -> seconds per phase
    Map<String, Double> counts = new TreeMap<>(); // form -> batches
    parse(text, sums, counts);
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<String, double[]> e : sums.entrySet()) {
      double n = counts.getOrDefault(e.getKey(), 0.0);
      if (n == 0) {
        continue;
      }
      double total = 0;
      for (double v : e.getValue()) {
        total += v;
      }
      List<String> row =
          new ArrayList<>(List.of(e.getKey(), String.format(Locale.ROOT, "%,.0f", n)));
      for (double v : e.getValue()) {
        row.add(
            String.format(
                Locale.ROOT, "%,.0f (%.0f%%)", v / n * 1e6, total == 0 ? 0 : 100 * v / total));
      }
      rows.add(row);
    }
    r.table(
        dataset
            + ": the batch route's time by phase, as the server measured it"
            + " (bbf_http_batch_phase_seconds; mean µs per batch and share)",
        List.of("form", "batches", "parse", "filter probe", "index reads", "write"),
        rows);
  }

  /** The server's {@code /metrics} text. */
  static String metrics(String baseUrl) throws IOException, InterruptedException {
    try (HttpClient client = HttpClient.newHttpClient()) {
      HttpResponse<String> res =
          client.send(
              HttpRequest.newBuilder(URI.create(baseUrl + "/metrics"))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (res.statusCode() != 200) {
        throw new IOException("GET /metrics answered " + res.statusCode());
      }
      return res.body();
    }
  }

  /**
   * One form's totals since the server started: seconds per phase ({@link #PHASES}) and batches;
   * two of them, before and after a run, give that run's own split.
   */
  record Totals(double[] seconds, double batches) {
    static Totals read(String baseUrl, String form) throws IOException, InterruptedException {
      Map<String, double[]> sums = new TreeMap<>();
      Map<String, Double> counts = new TreeMap<>();
      parse(metrics(baseUrl), sums, counts);
      return new Totals(
          sums.getOrDefault(form, new double[PHASES.size()]).clone(),
          counts.getOrDefault(form, 0.0));
    }

    /** {@code this - before}. */
    Totals minus(Totals before) {
      double[] d = new double[PHASES.size()];
      for (int p = 0; p < d.length; p++) {
        d[p] = seconds[p] - before.seconds[p];
      }
      return new Totals(d, batches - before.batches);
    }

    /** {@code this + other}. */
    Totals plus(Totals other) {
      double[] d = new double[PHASES.size()];
      for (int p = 0; p < d.length; p++) {
        d[p] = seconds[p] + other.seconds[p];
      }
      return new Totals(d, batches + other.batches);
    }

    /** Mean microseconds a batch in phase {@code p}. */
    double micros(int p) {
      return batches == 0 ? Double.NaN : 1e6 * seconds[p] / batches;
    }
  }

  static void parse(String text, Map<String, double[]> sums, Map<String, Double> counts) {
    Matcher m = SAMPLE.matcher(text);
    while (m.find()) {
      String form = null;
      String phase = null;
      Matcher l = LABEL.matcher(m.group(2));
      while (l.find()) {
        if (l.group(1).equals("form")) {
          form = l.group(2);
        } else if (l.group(1).equals("phase")) {
          phase = l.group(2);
        }
      }
      int p = PHASES.indexOf(phase);
      if (form == null || p < 0) {
        continue;
      }
      double v = Double.parseDouble(m.group(3));
      if (m.group(1).equals("sum")) {
        sums.computeIfAbsent(form, k -> new double[PHASES.size()])[p] = v;
      } else {
        counts.merge(form, v, Math::max); // every phase of a form counts the same batches
      }
    }
  }
}
