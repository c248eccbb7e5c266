package io.bbfindex.app.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * A progress line for long work (extraction, ingest): done/total, rate and ETA, at most one line
 * every {@code interval}, so the output stays readable both on a terminal and in a log file.
 */
public final class ProgressLine {
  private final PrintStream out;
  private final String what;
  private final String unit;
  private final long intervalNanos;
  private final long startNanos = System.nanoTime();
  private long lastPrintNanos = startNanos;

  public ProgressLine(PrintStream out, String what, String unit, Duration interval) {
    this.out = out;
    this.what = what;
    this.unit = unit;
    this.intervalNanos = interval.toNanos();
  }

  /** Prints a line if the interval has passed since the last one; {@code total <= 0} = unknown. */
  public void update(long done, long total) {
    long now = System.nanoTime();
    if (now - lastPrintNanos < intervalNanos) {
      return;
    }
    lastPrintNanos = now;
    out.println(format(done, total, now - startNanos));
  }

  /** Prints the closing line with the total time and the mean rate. */
  public void finish(long done) {
    long elapsed = System.nanoTime() - startNanos;
    out.println(String.format(Locale.ROOT, "%s: done, %,d %s in %s (%s)", what, done, unit,
        duration(elapsed), rate(done, elapsed)));
  }

  String format(long done, long total, long elapsedNanos) {
    StringBuilder sb = new StringBuilder(what).append(": ");
    if (total > 0) {
      sb.append(String.format(Locale.ROOT, "%,d/%,d %s (%.1f%%)", done, total, unit, 100.0 * done / total));
    } else {
      sb.append(String.format(Locale.ROOT, "%,d %s", done, unit));
    }
    sb.append(", ").append(rate(done, elapsedNanos));
    if (total > 0 && done > 0 && done < total) {
      long etaNanos = (long) ((double) elapsedNanos * (total - done) / done);
      sb.append(", ETA ").append(duration(etaNanos));
    }
    return sb.toString();
  }

  private String rate(long done, long elapsedNanos) {
    double perSecond = elapsedNanos <= 0 ? 0 : done * 1e9 / elapsedNanos;
    return String.format(Locale.ROOT, "%,.0f %s/s", perSecond, unit);
  }

  private static String duration(long nanos) {
    long s = Math.max(0, nanos / 1_000_000_000L);
    return s >= 3600
        ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
        : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }
}
