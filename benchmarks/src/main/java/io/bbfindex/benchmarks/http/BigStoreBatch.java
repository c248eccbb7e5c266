package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.Filled;
import io.bbfindex.benchmarks.synthetic.BigSummaryStore;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.store.ManifestFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The binary batch on a filter store too big for the cache: the regtest fixture's store with its
 * summary replaced by one of its txids plus {@link #KEYS} synthetic ones ({@link BigSummaryStore};
 * 100 M keys: a 130 MB summary, far beyond the CPU's caches), served by a real {@code serve} over
 * the fixture's data directory (which finds nothing to rebuild: checked). The batches of fixed
 * absent ids and of fresh ones ({@link FreshBatch}) are measured as on the small stores, in the
 * same run: the same route, body, client and ids' making, one store small, one big. Not yet
 * interleaved across the two stores (each has its own server, the big one measured after the
 * small), so a change of the machine's load between them moves the ratio.
 *
 * <p>The summary is built at every run (no cache): one thread, about 100 ns a key on this machine
 * (generation and an insert that misses the cache), printed.
 */
final class BigStoreBatch {

  /** Synthetic txids added to the fixture's summary. */
  static final long KEYS = 100_000_000L;

  /** Seed of the synthetic txids (not the seed of any id asked). */
  private static final long SEED = 0xB16B00L;

  static final List<String> TARGETS =
      List.of("livez", HttpBench.NEG_BATCH_BINARY, HttpBench.NEG_BATCH_FRESH);

  private BigStoreBatch() {}

  /** {@code keys} in a summary line's suffix: {@code 100m}, {@code 200k}. */
  static String suffix(long keys) {
    return keys >= 1_000_000 ? keys / 1_000_000 + "m" : keys / 1_000 + "k";
  }

  /**
   * Makes the big store from the fixture's (measured just before, its files under {@code tmp}),
   * serves it and runs {@link #TARGETS}; its figures, as the dataset {@code fixture-<suffix>}.
   */
  static List<HttpBench.Figure> measure(
      HttpBench.Config c, BenchReport r, Path tmp, HttpBench.Wrk tool, List<String> fixtureTxids)
      throws IOException, InterruptedException {
    String dataset = "fixture-" + suffix(c.bigKeys());
    Path small = tmp.resolve("fixture-filters");
    Path datadir = Path.of(ManifestFile.read(small).datadir());
    BigSummaryStore.Made big = make(c, r, tmp, dataset, small, fixtureTxids);
    Path requests = tmp.resolve("fixture-requests");
    Map<String, Path> files = new LinkedHashMap<>();
    files.put("livez", requests.resolve("livez.txt"));
    files.put(HttpBench.NEG_BATCH_BINARY, requests.resolve("batch-neg-binary.txt"));
    files.put(HttpBench.NEG_BATCH_FRESH, requests.resolve("batch-neg-binary.txt"));
    try (ServerProcess server =
        ServerProcess.serve(
            List.of(),
            ServerProcess.serveArgs(datadir, big.dir(), tmp.resolve("fixture-work")),
            tmp.resolve(dataset + "-serve.log"),
            300)) {
      long served = ManifestFile.read(big.dir()).summary().keys();
      if (served != big.summaryKeys()) {
        throw new IOException(
            "serve rebuilt the big summary (" + served + " keys): the measurement would be void");
      }
      r.line(
          "%s: serve start to 'listening' %.1f s over %s (summary kept: %,d keys), %s",
          dataset, server.startSeconds(), datadir, served, server.baseUrl());
      Map<String, List<WrkRun>> runs = run(c, tool, server.baseUrl(), files);
      List<HttpBench.Figure> figures = new ArrayList<>();
      List<List<String>> rows = new ArrayList<>();
      for (String t : TARGETS) {
        HttpBench.Figure f = HttpBench.figure(dataset, t, Filled.entry(runs, t));
        figures.add(f);
        rows.add(f.row(t, true));
      }
      r.table(
          dataset + ": median of " + c.rounds() + " round(s) of " + c.seconds() + " s",
          HttpBench.TABLE_HEADER,
          rows);
      BatchPhaseSplit.print(r, dataset, server.baseUrl());
      tool.fresh().printClientCost(r, dataset, server.baseUrl());
      r.line(
          "%s: serve's RSS after the runs %.0f MiB (default JVM heap flags; filters off-heap)",
          dataset, BenchReport.rssBytes(server.pid()) / 1048576.0);
      return figures;
    }
  }

  /** The big store beside the fixture's {@code small} one, and the line that describes it. */
  private static BigSummaryStore.Made make(
      HttpBench.Config c,
      BenchReport r,
      Path tmp,
      String dataset,
      Path small,
      List<String> fixtureTxids)
      throws IOException {
    BigSummaryStore.Made big =
        BigSummaryStore.make(
            small, tmp.resolve(dataset + "-filters"), internal(fixtureTxids), c.bigKeys(), SEED);
    r.line("");
    r.line(
        "%s: the fixture's store with a summary of %,d txids (its %,d and %,d synthetic), %.1f MiB,"
            + " made in %.1f s (one thread: %.0f ns a key)",
        dataset,
        big.summaryKeys(),
        fixtureTxids.size(),
        c.bigKeys(),
        big.summaryBytes() / 1048576.0,
        big.elapsed().toNanos() / 1e9,
        big.elapsed().toNanos() / (double) Math.max(1, big.summaryKeys()));
    return big;
  }

  /** Txids (display hex) as the store holds them: 32 bytes each, internal order, back to back. */
  static byte[] internal(List<String> txids) {
    byte[] out = new byte[32 * txids.size()];
    for (int i = 0; i < txids.size(); i++) {
      System.arraycopy(HashKeys.fromDisplayHex("txid", txids.get(i)), 0, out, 32 * i, 32);
    }
    return out;
  }

  /** Warm-up, then the rounds, as bench http runs its targets. */
  private static Map<String, List<WrkRun>> run(
      HttpBench.Config c, HttpBench.Wrk tool, String url, Map<String, Path> files)
      throws IOException, InterruptedException {
    for (String t : TARGETS) {
      HttpBench.runOne(tool, t, url, files, c, c.warmupSeconds());
    }
    Map<String, List<WrkRun>> runs = new LinkedHashMap<>();
    for (int round = 0; round < c.rounds(); round++) {
      for (String t : TARGETS) {
        runs.computeIfAbsent(t, k -> new ArrayList<>())
            .add(HttpBench.runOne(tool, t, url, files, c, c.seconds()));
      }
    }
    return runs;
  }

  /**
   * The summary lines: the big store's ids a second, fixed and fresh, and each over the same batch
   * on the small fixture store of the same run.
   */
  static void summarize(BenchReport r, List<HttpBench.Figure> all, HttpBench.Config c) {
    String s = suffix(c.bigKeys());
    String dataset = "fixture-" + s;
    double fresh = find(all, dataset, HttpBench.NEG_BATCH_FRESH);
    double fixed = find(all, dataset, HttpBench.NEG_BATCH_BINARY);
    double smallFresh = find(all, "fixture", HttpBench.NEG_BATCH_FRESH);
    double smallFixed = find(all, "fixture", HttpBench.NEG_BATCH_BINARY);
    r.summary("batch_binary_ids_per_second_" + s, fresh);
    r.summary("batch_binary_" + s + "_over_small", fresh / smallFresh);
    r.summary("batch_binary_fixed_ids_per_second_" + s, fixed);
    r.summary("batch_binary_fixed_" + s + "_over_small", fixed / smallFixed);
    r.line(
        String.format(
            Locale.ROOT,
            "batch_binary_*_%s: 10,000 absent ids a binary batch on the fixture's store with a"
                + " summary of %,d more txids; '_over_small': over the same batch on the fixture's"
                + " own store, same run; without 'fixed': fresh ids (none asked twice).",
            s,
            c.bigKeys()));
  }

  private static double find(List<HttpBench.Figure> all, String dataset, String target) {
    return all.stream()
        .filter(f -> f.dataset().equals(dataset) && f.target().equals(target))
        .findFirst()
        .orElseThrow()
        .idsPerSecond();
  }
}
