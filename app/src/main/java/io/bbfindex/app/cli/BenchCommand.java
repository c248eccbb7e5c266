package io.bbfindex.app.cli;

import io.bbfindex.app.demo.EmbeddedDemo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bbf-index bench}: load figures from wrk, never from timed unit tests. Runs wrk against
 * {@code /livez} (the baseline: routing and HTTP only), a negative single lookup and a positive
 * one, interleaved round by round so that noise from other processes hits all three alike, and
 * prints the median requests/s and p99 of each and the negative/livez ratio.
 */
final class BenchCommand {
  static final String HELP = """
      usage: bbf-index bench http [--quick] [--url URL] [--duration S] [--rounds N] [--connections C] [--threads T]

      Measures a server with wrk (Debian: apt-get install wrk): GET /livez as the baseline, then a
      negative and a positive single lookup, interleaved for N rounds; prints median requests/s
      and p99 latency of each, and negative lookups as a share of /livez, ending with
      'summary: NAME VALUE' lines.

      With no --url, starts the embedded demo (mainnet 0-599) in this process on a free port and
      measures it; with --url, measures a running server that serves mainnet data.

        --quick           2 rounds of 5 s (about 40 s in all)
        --url URL         base URL of a running server (default: start the embedded demo)
        --duration S      seconds per wrk run (default 10)
        --rounds N        rounds of the three runs (default 3)
        --connections C   wrk connections (default 64)
        --threads T       wrk threads (default 2)
      """;

  private static final Set<String> OPTIONS = Set.of("url", "duration", "rounds", "connections", "threads");
  private static final Pattern RPS = Pattern.compile("^Requests/sec:\\s+([0-9.]+)", Pattern.MULTILINE);
  private static final Pattern P99 = Pattern.compile("^\\s+99%\\s+([0-9.]+)(us|ms|s)\\s*$", Pattern.MULTILINE);
  private static final Pattern ERRORS = Pattern.compile("^\\s+Socket errors: .*$|^\\s+Non-2xx or 3xx responses: \\d+$", Pattern.MULTILINE);

  private BenchCommand() {}

  /** One measured target. */
  record Target(String name, String path, int expectedStatus) {}

  static final List<Target> TARGETS = List.of(
      new Target("livez", "/livez", 200),
      new Target("tx negative", "/v1/tx/" + EmbeddedDemo.LATER_TXID, 404),
      new Target("tx positive", "/v1/tx/" + EmbeddedDemo.PAYMENT_170, 200));

  static void run(List<String> args, PrintStream out, PrintStream err, ChainAccess access, Path home)
      throws UsageException, IOException, InterruptedException {
    List<String> rest = new java.util.ArrayList<>(args);
    if (!rest.isEmpty() && rest.getFirst().equals("http")) {
      rest.removeFirst(); // "bench http", as the launcher names the suite
    }
    boolean quick = rest.remove("--quick");
    Options o = Options.parse("bench", rest, OPTIONS);
    if (o.help()) {
      out.print(HELP);
      return;
    }
    int duration = o.integer("duration", quick ? 5 : 10, 1, 3_600);
    int rounds = o.integer("rounds", quick ? 2 : 3, 1, 100);
    int connections = o.integer("connections", 64, 1, 10_000);
    int threads = o.integer("threads", 2, 1, 256);
    if (threads > connections) {
      throw new UsageException("--threads must not exceed --connections: " + threads + " > " + connections);
    }
    String url = o.string("url", null);
    if (url != null && !url.matches("http://[^/]+")) {
      throw new UsageException("--url must be http://HOST:PORT without a path: " + url);
    }
    requireWrk();
    ServeCommand.Started started = null;
    if (url == null) {
      started = ServeCommand.start(List.of("--port", "0"), new PrintStream(java.io.OutputStream.nullOutputStream()), err, access, home);
      url = started.service().server().baseUrl();
    }
    try {
      out.printf(Locale.ROOT, "wrk -t%d -c%d -d%ds --latency, %d round(s), against %s%n", threads, connections, duration, rounds, url);
      double[][] rps = new double[TARGETS.size()][rounds];
      double[][] p99 = new double[TARGETS.size()][rounds];
      for (Target t : TARGETS) { // warm-up: let the JIT see every route before anything is measured
        wrk(url + t.path(), threads, connections, Math.min(duration, 3));
      }
      for (int r = 0; r < rounds; r++) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "round %d:", r + 1));
        for (int t = 0; t < TARGETS.size(); t++) {
          String report = wrk(url + TARGETS.get(t).path(), threads, connections, duration);
          rps[t][r] = requestsPerSecond(report);
          p99[t][r] = p99Millis(report);
          line.append(String.format(Locale.ROOT, "  %s %,.0f/s", TARGETS.get(t).name(), rps[t][r]));
          Matcher errors = ERRORS.matcher(report);
          while (errors.find()) {
            if (!(errors.group().contains("Non-2xx") && TARGETS.get(t).expectedStatus() == 404)) {
              err.println("bbf-index bench: " + TARGETS.get(t).name() + ": " + errors.group().trim());
            }
          }
        }
        out.println(line);
      }
      out.printf(Locale.ROOT, "%-12s %14s %10s%n", "target", "requests/s", "p99 ms");
      for (int t = 0; t < TARGETS.size(); t++) {
        out.printf(Locale.ROOT, "%-12s %,14.0f %10.2f%n", TARGETS.get(t).name(), median(rps[t]), median(p99[t]));
      }
      double share = 100 * median(rps[1]) / median(rps[0]);
      out.printf(Locale.ROOT, "negative lookups reach %.1f%% of /livez requests/s (median of %d rounds)%n", share, rounds);
      for (int t = 0; t < TARGETS.size(); t++) {
        String key = "http_" + TARGETS.get(t).name().replace(' ', '_');
        out.printf(Locale.ROOT, "summary: %s_rps %.0f%n", key, median(rps[t]));
        out.printf(Locale.ROOT, "summary: %s_p99_ms %.2f%n", key, median(p99[t]));
      }
      out.printf(Locale.ROOT, "summary: http_negative_vs_livez_pct %.1f%n", share);
    } finally {
      if (started != null) {
        started.service().close();
      }
    }
  }

  private static void requireWrk() throws IOException {
    try {
      Process p = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      p.waitFor();
    } catch (IOException e) {
      throw new IOException("wrk is not installed (Debian: apt-get install wrk)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
  }

  private static String wrk(String url, int threads, int connections, int seconds) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s", "--latency", url)
        .redirectErrorStream(true)
        .start();
    String report = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException("wrk failed on " + url + ": " + report.strip());
    }
    return report;
  }

  static double requestsPerSecond(String report) throws IOException {
    Matcher m = RPS.matcher(report);
    if (!m.find()) {
      throw new IOException("no 'Requests/sec' in wrk's report: " + report.strip());
    }
    return Double.parseDouble(m.group(1));
  }

  static double p99Millis(String report) throws IOException {
    Matcher m = P99.matcher(report);
    if (!m.find()) {
      throw new IOException("no 99% latency in wrk's report (run with --latency): " + report.strip());
    }
    double v = Double.parseDouble(m.group(1));
    return switch (m.group(2)) {
      case "us" -> v / 1_000;
      case "ms" -> v;
      default -> v * 1_000;
    };
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
