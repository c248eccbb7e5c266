package io.bbfindex.benchmarks.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a benchmark prints: free lines, aligned tables, and at the end the machine-readable block of
 * {@code summary: NAME VALUE} lines (one per figure, stable names, ratios where a comparison is
 * meant). Everything printed is also kept and written to {@code bench-results/NAME-TIMESTAMP.txt}
 * under the project root (git-ignored), and the summary block alone to {@code
 * bench-results/NAME-summary.txt}, so the last run of each benchmark is at hand.
 */
public final class BenchReport {

  private final String name;
  private final PrintStream out;
  private final StringBuilder text = new StringBuilder();
  private final Map<String, String> summary = new LinkedHashMap<>();

  /** When the suite began (its report is made first): the wall time printed by {@link #finish}. */
  private final long started = System.nanoTime();

  public BenchReport(String name, PrintStream out) {
    this.name = name;
    this.out = out;
  }

  /** Prints one line (String.format with the root locale). */
  public void line(String format, Object... args) {
    String s = args.length == 0 ? format : String.format(Locale.ROOT, format, args);
    text.append(s).append('\n');
    out.println(s);
    out.flush();
  }

  /**
   * Prints a table: a title, the header, a rule, the rows; columns right-aligned except the first.
   */
  public void table(String title, List<String> header, List<List<String>> rows) {
    int[] w = new int[header.size()];
    for (int i = 0; i < w.length; i++) {
      w[i] = header.get(i).length();
    }
    for (List<String> r : rows) {
      for (int i = 0; i < w.length && i < r.size(); i++) {
        w[i] = Math.max(w[i], r.get(i).length());
      }
    }
    line("");
    line(title);
    line(row(header, w));
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < w.length; i++) {
      rule.append(i == 0 ? "" : "  ").append("-".repeat(w[i]));
    }
    line(rule.toString());
    for (List<String> r : rows) {
      line(row(r, w));
    }
  }

  private static String row(List<String> cells, int[] w) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < w.length; i++) {
      String c = i < cells.size() ? cells.get(i) : "";
      if (i == 0) {
        sb.append(c).append(" ".repeat(w[i] - c.length()));
      } else {
        sb.append("  ").append(" ".repeat(w[i] - c.length())).append(c);
      }
    }
    return sb.toString().stripTrailing();
  }

  /** Records a summary figure (printed by {@link #finish}). */
  public void summary(String key, double value) {
    summary.put(key, format(value));
  }

  public void summary(String key, String value) {
    summary.put(key, value);
  }

  /** The summary figures so far, in order. */
  public Map<String, String> summaries() {
    return Map.copyOf(summary);
  }

  /**
   * Prints the summary block and writes the result files under {@code home/bench-results} (if home
   * is known).
   */
  public void finish(@Nullable Path home) throws IOException {
    line("");
    line(
        "%s: wall time %.0f s (%.1f min) from the report's start, load average at the end %s",
        name,
        (System.nanoTime() - started) / 1e9,
        (System.nanoTime() - started) / 60e9,
        loadAverage());
    List<String> block = new ArrayList<>();
    summary.forEach((k, v) -> block.add("summary: " + k + " " + v));
    block.forEach(l -> line(l));
    if (home == null) {
      return;
    }
    Path dir = home.resolve("bench-results");
    Files.createDirectories(dir);
    String stamp =
        ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path file = dir.resolve(name + "-" + stamp + ".txt");
    Files.writeString(file, text, StandardCharsets.UTF_8);
    Files.write(dir.resolve(name + "-summary.txt"), block, StandardCharsets.UTF_8);
    out.println("(written to " + home.relativize(file) + ")");
  }

  /** A figure with 3 significant digits (no exponent for the magnitudes benchmarks produce). */
  public static String format(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return Double.toString(v);
    }
    double a = Math.abs(v);
    if (a >= 100 || (v == Math.rint(v) && a < 1e15)) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (a >= 1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3g", v);
  }

  /** The median of {@code v} (the mean of the middle two for an even count). */
  public static double median(double[] v) {
    double[] s = v.clone();
    java.util.Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** Thousands-separated integer, e.g. {@code 1,400,000,000}. */
  public static String count(long v) {
    return String.format(Locale.ROOT, "%,d", v);
  }

  /**
   * Peak resident set size of this process (VmHWM of /proc/self/status), or -1 where unavailable.
   */
  public static long peakRssBytes() {
    return procStatusKb("VmHWM:") * 1024;
  }

  /** Current resident set size (VmRSS), or -1 where unavailable. */
  public static long rssBytes() {
    return procStatusKb("self", "VmRSS:") * 1024;
  }

  /** Current resident set size (VmRSS) of process {@code pid}, or -1 where unavailable. */
  public static long rssBytes(long pid) {
    return procStatusKb(Long.toString(pid), "VmRSS:") * 1024;
  }

  /**
   * Resident pages of this process backed by files (RssFile: mapped filter files among them), or -1
   * where unavailable.
   */
  public static long rssFileBytes() {
    return procStatusKb("RssFile:") * 1024;
  }

  /** Resident anonymous pages (RssAnon: heap, JIT, thread stacks), or -1 where unavailable. */
  public static long rssAnonBytes() {
    return procStatusKb("RssAnon:") * 1024;
  }

  private static long procStatusKb(String field) {
    return procStatusKb("self", field);
  }

  private static long procStatusKb(String process, String field) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc", process, "status"))) {
        if (l.startsWith(field)) {
          return Long.parseLong(l.substring(field.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Prints which machine and JVM the figures come from. */
  public void environment() {
    line(
        "machine: %d cores (%s), JVM %s %s, max heap %d MiB; load average %s",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.arch"),
        System.getProperty("java.vm.name"),
        Runtime.version(),
        Runtime.getRuntime().maxMemory() >> 20,
        loadAverage());
  }

  /** The 1-minute load average of /proc/loadavg, or "?". */
  public static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+", 4)[0];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }
}
