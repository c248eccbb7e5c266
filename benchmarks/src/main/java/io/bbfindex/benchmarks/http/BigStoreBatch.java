package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
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
 * same run: the same route, body, client and ids' making, one store small, one big. Both stores'
 * servers are up at once and their rounds alternate ({@link StorePairRounds}): the ratios are the
 * medians of per-round ratios, every round printed.
 *
 * <p>The summary is built at every run (no cache): one thread, about 100 ns a key on this machine
 * (generation and an insert that misses the cache), printed.
 */
final class BigStoreBatch {

  /** Synthetic txids added to the fixture's summary. */
  static final long KEYS = 100_000_000L;

  /** Seed of the synthetic txids (not the seed of any id asked). */
  private static final long SEED = 0xB16B00L;

  private BigStoreBatch() {}

  /** {@code keys} in a summary line's suffix: {@code 100m}, {@code 200k}. */
  static String suffix(long keys) {
    return keys >= 1_000_000 ? keys / 1_000_000 + "m" : keys / 1_000 + "k";
  }

  /**
   * Makes the big store from the fixture's (ingested just before, its files under {@code tmp}),
   * serves it and the fixture's own store at once, and runs {@link StorePairRounds}; the figures of
   * both, as the data sets {@code fixture} (the binary batches only) and {@code fixture-<suffix>},
   * and the per-round ratios.
   */
  static StorePairRounds.Result measure(
      HttpBench.Config c,
      BenchReport r,
      Path tmp,
      HttpBench.Wrk tool,
      List<String> fixtureTxids,
      List<HttpBench.Figure> figures)
      throws IOException, InterruptedException {
    String dataset = "fixture-" + suffix(c.bigKeys());
    Path small = tmp.resolve("fixture-filters");
    Path datadir = Path.of(ManifestFile.read(small).datadir());
    BigSummaryStore.Made big = make(c, r, tmp, dataset, small, fixtureTxids);
    Path requests = tmp.resolve("fixture-requests");
    Map<String, Path> files = new LinkedHashMap<>();
    files.put(HttpBench.NEG_BATCH_BINARY, requests.resolve("batch-neg-binary.txt"));
    files.put(HttpBench.NEG_BATCH_FRESH, requests.resolve("batch-neg-binary.txt"));
    Path work = tmp.resolve("fixture-work"); // each serve claims its own snapshot directory in it
    try (ServerProcess smallServer =
            ServerProcess.serve(
                List.of(),
                ServerProcess.serveArgs(datadir, small, work),
                tmp.resolve("fixture-pair-serve.log"),
                300);
        ServerProcess server =
            ServerProcess.serve(
                List.of(),
                ServerProcess.serveArgs(datadir, big.dir(), work),
                tmp.resolve(dataset + "-serve.log"),
                300)) {
      checkKept(big);
      r.line(
          "%s: serve start to 'listening' %.1f s over %s (summary kept: %,d keys), %s; beside it"
              + " the fixture's own store served again, %s",
          dataset,
          server.startSeconds(),
          datadir,
          big.summaryKeys(),
          server.baseUrl(),
          smallServer.baseUrl());
      List<StorePairRounds.Side> sides =
          List.of(
              new StorePairRounds.Side("fixture", smallServer.baseUrl()),
              new StorePairRounds.Side(dataset, server.baseUrl()));
      StorePairRounds.Result res =
          StorePairRounds.run(c, r, tool, sides.get(0), sides.get(1), files);
      report(c, r, res, sides, figures);
      r.line(
          "%s: serve's RSS after the runs %.0f MiB (default JVM heap flags; filters off-heap)",
          dataset, BenchReport.rssBytes(server.pid()) / 1048576.0);
      return res;
    }
  }

  /** Whether serve kept the grafted summary (a rebuilt one would void the measurement). */
  private static void checkKept(BigSummaryStore.Made big) throws IOException {
    long served = ManifestFile.read(big.dir()).summary().keys();
    if (served != big.summaryKeys()) {
      throw new IOException(
          "serve rebuilt the big summary (" + served + " keys): the measurement would be void");
    }
  }

  /** The pair's table (medians over rounds) and what its batches cost; figures into {@code all}. */
  private static void report(
      HttpBench.Config c,
      BenchReport r,
      StorePairRounds.Result res,
      List<StorePairRounds.Side> sides,
      List<HttpBench.Figure> all) {
    List<List<String>> rows = new ArrayList<>();
    for (StorePairRounds.Side s : sides) {
      for (String t : StorePairRounds.TARGETS) {
        HttpBench.Figure f = HttpBench.figure(s.dataset(), t, res.runs(s.dataset(), t));
        all.add(f);
        rows.add(f.row(s.dataset() + ": " + t, true));
      }
    }
    r.table(
        "the two stores side by side: median of "
            + c.pairRounds()
            + " alternating round(s) of "
            + c.pairSeconds()
            + " s per target and store",
        HttpBench.TABLE_HEADER,
        rows);
    StorePairRounds.printCosts(r, res, sides);
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

  /**
   * The summary lines: the big store's ids a second, fixed and fresh, and each over the same batch
   * on the small fixture store of the same run.
   */
  static void summarize(
      BenchReport r, List<HttpBench.Figure> all, HttpBench.Config c, StorePairRounds.Result res) {
    String s = suffix(c.bigKeys());
    String dataset = "fixture-" + s;
    r.summary("batch_binary_ids_per_second_" + s, find(all, dataset, HttpBench.NEG_BATCH_FRESH));
    r.summary("batch_binary_" + s + "_over_small", res.medianRatio(HttpBench.NEG_BATCH_FRESH));
    r.summary(
        "batch_binary_fixed_ids_per_second_" + s, find(all, dataset, HttpBench.NEG_BATCH_BINARY));
    r.summary(
        "batch_binary_fixed_" + s + "_over_small", res.medianRatio(HttpBench.NEG_BATCH_BINARY));
    r.summary(
        "batch_binary_fresh_client_cpu_us",
        StorePairRounds.clientMicros(res, "fixture", HttpBench.NEG_BATCH_FRESH));
    r.summary(
        "batch_binary_fixed_client_cpu_us",
        StorePairRounds.clientMicros(res, "fixture", HttpBench.NEG_BATCH_BINARY));
    r.line(
        String.format(
            Locale.ROOT,
            "batch_binary_*_%s: 10,000 absent ids a binary batch on the fixture's store with a"
                + " summary of %,d more txids; '_over_small': the median of the rounds' ratios to"
                + " the same batch on the fixture's own store, both served at once, rounds"
                + " alternating; without 'fixed': fresh ids (none asked twice); '_client_cpu_us':"
                + " wrk's CPU a request on the fixture's own store.",
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
