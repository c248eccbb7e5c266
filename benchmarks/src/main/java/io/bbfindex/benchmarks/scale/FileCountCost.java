package io.bbfindex.benchmarks.scale;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.synthetic.StoreAssembly;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What the block-file count costs, now that a lookup probes only the summary (a negative lookup's
 * time cannot depend on it): the start-up of the service and the memory it holds after start, at 1
 * block file and at the main store's count, over the same txids, in the same run, as ratios. Both
 * the default store (per-file filters off: the count only lengthens the manifest) and the store
 * with per-file filters (one filter file a block file, each mapped and checked at start).
 *
 * <p>Not measured, and why: the build time per file count (the fewer-file stores are built in one
 * pass together, beside the main store, so no store has a build time of its own), and the merge of
 * one new block file (a synthetic store has no node whose block index the builder could read).
 */
final class FileCountCost {

  /** Start-ups of one file count: the default store's and, with per-file filters, the full one. */
  record Starts(int files, ScaleBench.Startup plain, ScaleBench.Startup full) {}

  private FileCountCost() {}

  /**
   * Starts the 1-file stores ({@code oneFile}: per-file filters on; its default form derived from
   * it) as the main store's were started, and prints the table and summary lines against {@code
   * many}.
   */
  static void measure(ScaleBench.Config c, BenchReport r, Path tmp, Path oneFile, Starts many)
      throws IOException, InterruptedException {
    Path onePlain = tmp.resolve("files-1-default");
    StoreAssembly.withoutFileFilters(oneFile, onePlain);
    List<String> cds = ScaleBench.classDataSharing(tmp);
    Starts one =
        new Starts(
            1,
            ScaleBench.startup(onePlain, c.startupRuns(), cds),
            ScaleBench.startup(oneFile, c.startupRuns(), cds));
    print(r, one, many);
    r.line("  breakdown, 1 file, default store (last run): %s", one.plain().last());
    r.line("  breakdown, 1 file, per-file filters on (last run): %s", one.full().last());
  }

  /** The table of both counts and the growth summary lines. */
  static void print(BenchReport r, Starts one, Starts many) {
    r.table(
        "what the block-file count costs: the same txids in 1 vs "
            + BenchReport.count(many.files())
            + " block files (fresh-JVM start-up to 'listening', median; RSS once the copies"
            + " answer; with the class data archive)",
        List.of(
            "files",
            "start-up s, default",
            "RSS, default",
            "start-up s, per-file filters",
            "RSS, per-file filters"),
        List.of(row(one), row(many)));
    String suffix = "_1_to_" + many.files() + "_files";
    r.summary("startup_growth" + suffix, many.plain().seconds() / one.plain().seconds());
    r.summary("rss_growth" + suffix, many.plain().rssMib() / one.plain().rssMib());
    r.summary(
        "startup_growth" + suffix + "_with_file_filters",
        many.full().seconds() / one.full().seconds());
    r.summary(
        "rss_growth" + suffix + "_with_file_filters", many.full().rssMib() / one.full().rssMib());
    r.line(
        "not measured: the build per file count (the fewer-file stores are built in one pass"
            + " together) and the merge of one new block file (a synthetic store has no node to"
            + " read it from); a negative lookup probes only the summary, whatever the count.");
  }

  private static List<String> row(Starts s) {
    return List.of(
        BenchReport.count(s.files()),
        String.format(Locale.ROOT, "%.2f", s.plain().seconds()),
        String.format(Locale.ROOT, "%.1f MiB", s.plain().rssMib()),
        String.format(Locale.ROOT, "%.2f", s.full().seconds()),
        String.format(Locale.ROOT, "%.1f MiB", s.full().rssMib()));
  }
}
