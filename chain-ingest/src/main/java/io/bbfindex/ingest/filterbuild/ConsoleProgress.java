package io.bbfindex.ingest.filterbuild;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Prints a progress line with rate and ETA to a stream (standard error by default), at most once
 * per second, e.g. {@code scan txindex: 12,345,678 / 1,400,000,000 (0.9%) 1.21 M/s ETA 19m 2s}.
 */
public final class ConsoleProgress implements ProgressListener {

  private static final long INTERVAL_NANOS = 1_000_000_000L;

  private final PrintStream out;
  private final LongSupplier clock;
  private @Nullable String phase;
  private long phaseStart;
  private long lastPrint;

  public ConsoleProgress() {
    this(System.err, System::nanoTime);
  }

  ConsoleProgress(PrintStream out, LongSupplier nanoClock) {
    this.out = out;
    this.clock = nanoClock;
  }

  @Override
  public void progress(String phase, long done, long total) {
    long now = clock.getAsLong();
    if (!phase.equals(this.phase)) {
      this.phase = phase;
      this.phaseStart = now;
      this.lastPrint = now;
      return;
    }
    if (now - lastPrint < INTERVAL_NANOS) {
      return;
    }
    lastPrint = now;
    out.println(line(phase, done, total, now - phaseStart));
  }

  @Override
  public void phaseDone(String phase, long done) {
    long elapsed = phase.equals(this.phase) ? clock.getAsLong() - phaseStart : 0;
    out.println(
        String.format(
            Locale.ROOT,
            "%s: done, %,d in %s (%s)",
            phase,
            done,
            duration(elapsed / 1e9),
            rate(done, elapsed)));
    this.phase = null;
  }

  /** The line printed for a phase at {@code done} of {@code total} after {@code elapsedNanos}. */
  static String line(String phase, long done, long total, long elapsedNanos) {
    String rate = rate(done, elapsedNanos);
    if (total <= 0) {
      return String.format(Locale.ROOT, "%s: %,d  %s", phase, done, rate);
    }
    double seconds = elapsedNanos / 1e9;
    double perSecond = seconds > 0 ? done / seconds : 0;
    String eta = perSecond > 0 && done < total ? duration((total - done) / perSecond) : "-";
    return String.format(
        Locale.ROOT,
        "%s: %,d / %,d (%.1f%%)  %s  ETA %s",
        phase,
        done,
        total,
        100.0 * done / total,
        rate,
        eta);
  }

  private static String rate(long done, long elapsedNanos) {
    double perSecond = elapsedNanos > 0 ? done / (elapsedNanos / 1e9) : 0;
    return perSecond >= 1e6
        ? String.format(Locale.ROOT, "%.2f M/s", perSecond / 1e6)
        : String.format(Locale.ROOT, "%.1f k/s", perSecond / 1e3);
  }

  static String duration(double seconds) {
    long s = Math.round(seconds);
    if (s >= 3600) {
      return String.format(Locale.ROOT, "%dh %02dm", s / 3600, (s % 3600) / 60);
    }
    if (s >= 60) {
      return String.format(Locale.ROOT, "%dm %2ds", s / 60, s % 60);
    }
    return s + "s";
  }
}
