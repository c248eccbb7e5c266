package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.benchmarks.harness.Filled;
import io.bbfindex.benchmarks.harness.ProjectHome;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bbf-index bench http [--quick] [--jfr]}: wrk against {@code serve} (its own JVM,
 * 127.0.0.1, port 0) on two data directories: the embedded demo (real mainnet blocks 0-599, 615
 * txids) and the 150,401-txid regtest fixture, each ingested first. Per data directory, in the same
 * server run: {@code GET /livez} (baseline: HTTP and routing only), negative, positive and 50/50
 * single lookups ({@code GET /v1/tx/{txid}}, cycling through lists of txids), and batches of 1,000
 * ids ({@code POST /v1/tx/lookup}) and of 10,000 absent ids (binary and JSON forms; the split of
 * the batch route's time by phase read from the server's metrics afterwards), raw transactions
 * ({@code GET /v1/tx/{txid}/raw}) and merkle proofs of positives, and, when {@code $BITCOIND} is
 * set, Core's own {@code /rest/tx/<txid>.bin} for the same positives on a real bitcoind ({@code
 * -rest -txindex}, 127.0.0.1) over a copy of the same data directory; rounds interleaved so
 * background load hits every target alike. The fixture's binary batches (fixed and fresh ids) are
 * measured beside the same batches on a 100 M-key summary ({@link BigStoreBatch}): both stores
 * served at once, their rounds alternating ({@link StorePairRounds}).
 *
 * <p>Positives come from each fixture's ground-truth table; negatives are real mainnet txids of
 * {@code fixtures/mainnet-real-txids.tsv.gz} that are not in the demo (so absent from both). wrk
 * and the server share this machine's cores.
 */
@Command(
    name = "http",
    description = {
      "wrk (Debian: apt-get install wrk) against 'serve' on 127.0.0.1: /livez, negative, positive"
          + " and 50/50 single lookups, batches of 1,000 ids, on the embedded demo and on the"
          + " 150,401-txid regtest fixture."
    })
public final class HttpBench implements Callable<Integer> {

  @Option(
      names = "--quick",
      description =
          "4 s per run after 1 s of warm-up, 2 rounds; the two stores' batches in 4 alternating"
              + " rounds of 3 s (default 10 s after 5 s, 3 rounds; 5 rounds of 10 s)")
  boolean quick;

  @Option(
      names = "--jfr",
      description =
          "record the server with Java Flight Recorder into "
              + "bench-results/http-DATASET.jfr and print where its CPU went")
  boolean jfr;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this help")
  boolean help;

  static final Archive MULTIFILE = Archive.REGTEST_MULTIFILE;

  /** The embedded demo's data: the same archive the product ships. */
  static final Archive DEMO = Archive.MAINNET_LDB;

  static final int BATCH_IDS = 1_000;

  /** Block 0's coinbase: identical on mainnet and regtest, so not a negative anywhere. */
  static final String GENESIS_COINBASE =
      "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";

  static final String LIVEZ = "livez";
  static final String NEGATIVE = "negative";
  static final String RAW_TX = "raw tx";
  static final String MERKLE_PROOF = "merkle proof";

  /** Core's {@code /rest/tx/<txid>.bin} on a bitcoind over a copy of the same data directory. */
  static final String CORE_REST = "core rest tx.bin";

  /** Ids in one request of the absent-id batches, the batch route's limit. */
  static final int NEG_BATCH_IDS = 10_000;

  /** 10,000 absent ids a request, raw 32-byte ids in, a status byte per id out. */
  static final String NEG_BATCH_BINARY = "batch 10000 absent, binary";

  /** The same absent ids as a JSON array of hex strings. */
  static final String NEG_BATCH_JSON = "batch 10000 absent, json";

  /** 10,000 absent ids a request, binary, none asked before in the run ({@link FreshBatch}). */
  static final String NEG_BATCH_FRESH = "batch 10000 fresh, binary";

  static final List<String> TARGETS =
      List.of(
          LIVEZ,
          NEGATIVE,
          "positive",
          "50/50",
          "batch 1000",
          NEG_BATCH_BINARY,
          NEG_BATCH_JSON,
          NEG_BATCH_FRESH,
          RAW_TX,
          MERKLE_PROOF);

  /** The header of a data directory's table ({@link Figure#row} with ids and non-2xx). */
  static final List<String> TABLE_HEADER =
      List.of(
          "target", "requests/s", "txids/s", "p50 ms", "p99 ms", "requests", "non-2xx", "answers");

  record Config(
      int seconds,
      int warmupSeconds,
      int rounds,
      int threads,
      int connections,
      boolean jfr,
      boolean quick,
      List<String> datasets,
      long bigKeys,
      int pairRounds,
      int pairSeconds) {
    static Config of(boolean quick, boolean jfr) {
      // --quick fits in 5 minutes on 2 cores: 4-s runs after a 1-s warm-up each (the server's JIT
      // is warm after the first targets; 5 s and 2 s made the suite 6-8 minutes), and the two
      // stores' batches in 4 short alternating rounds, whose median ratio outvotes a disturbed one
      List<String> sets = List.of("demo", "fixture");
      return quick
          ? new Config(4, 1, 2, 2, 32, jfr, true, sets, BigStoreBatch.KEYS, 4, 3)
          : new Config(10, 5, 3, 2, 32, jfr, false, sets, BigStoreBatch.KEYS, 5, 10);
    }

    /**
     * Whether the fixture's binary batches are measured in the pair of stores ({@link
     * StorePairRounds}) rather than in the fixture's own server run.
     */
    boolean paired() {
      return bigKeys > 0 && datasets.contains("fixture");
    }
  }

  /** Median figures of one target on one data directory. */
  record Figure(
      String dataset,
      String target,
      double rps,
      double idsPerSecond,
      double p50,
      double p99,
      long requests,
      long non2xx,
      long socketErrors,
      String check) {

    /**
     * A table row: {@code label}, requests/s, [txids/s,] p50 and p99 ms, requests, [non-2xx,] the
     * answers' check; the bracketed cells only {@code withIdsAndNon2xx}.
     */
    List<String> row(String label, boolean withIdsAndNon2xx) {
      List<String> cells =
          new ArrayList<>(List.of(label, String.format(Locale.ROOT, "%,.0f", rps)));
      if (withIdsAndNon2xx) {
        cells.add(String.format(Locale.ROOT, "%,.0f", idsPerSecond));
      }
      cells.add(String.format(Locale.ROOT, "%.2f", p50));
      cells.add(String.format(Locale.ROOT, "%.2f", p99));
      cells.add(String.format(Locale.ROOT, "%,d", requests));
      if (withIdsAndNon2xx) {
        cells.add(String.format(Locale.ROOT, "%,d", non2xx));
      }
      cells.add(check);
      return cells;
    }
  }

  HttpBench() {}

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (!WrkRun.installedFor("http")) {
      return 2;
    }
    Path home = ProjectHome.home();
    if (home == null) {
      System.err.println(
          "bbf-index bench http: the project root is unknown (-Dbbf.home); run through"
              + " ./bbf-index");
      return 2;
    }
    Config c = Config.of(quick, jfr);
    BenchReport report = new BenchReport(c.quick() ? "http-quick" : "http", System.out);
    try (BenchTempDir tmp = BenchTempDir.create("bbf-bench-http-")) {
      run(c, report, tmp.path(), home);
    }
    report.finish(home);
    return 0;
  }

  static List<Figure> run(Config c, BenchReport r, Path tmp, Path home)
      throws IOException, InterruptedException {
    Path wrk = WrkRun.require();
    r.line(
        "bbf-index bench http%s: wrk -t%d -c%d -d%ds --latency, %d round(s), against serve on"
            + " 127.0.0.1",
        c.quick() ? " --quick" : "", c.threads(), c.connections(), c.seconds(), c.rounds());
    r.environment();
    r.line(
        "NOTE: wrk and the server share this machine's %d cores, and other processes may be"
            + " running: figures are relative to /livez measured in the same server run, through"
            + " the same wrk script.",
        Runtime.getRuntime().availableProcessors());
    Path script = WrkRun.writeScript(tmp);
    List<String> demoTruth = txids(DEMO);
    Set<String> exclude = new HashSet<>(demoTruth);
    exclude.add(GENESIS_COINBASE);
    List<String> negatives = negatives(exclude);
    r.line(
        "negatives: %,d real mainnet txids of mainnet-real-txids.tsv.gz not in the demo's txindex"
            + " (nor the genesis coinbase, which every network shares and the service rightly"
            + " answers)",
        negatives.size());

    List<Figure> all = new ArrayList<>();
    Wrk tool = new Wrk(wrk, script, FreshBatch.in(tmp));
    for (String dataset : c.datasets()) {
      all.addAll(measure(c, r, tmp, home, tool, dataset, demoTruth, negatives));
    }
    StorePairRounds.@Nullable Result pair =
        c.paired() ? BigStoreBatch.measure(c, r, tmp, tool, txids(MULTIFILE), all) : null;
    summarize(r, all, c);
    if (pair != null) {
      BigStoreBatch.summarize(r, all, c, pair);
    }
    r.line(
        "summary lines without a suffix are the 150,401-txid fixture; '_demo' the embedded demo.");
    return all;
  }

  /** wrk, its script, and the fresh-batch script. */
  record Wrk(Path binary, Path script, FreshBatch fresh) {}

  /** One dataset: ingest, serve (and Core REST beside it), wrk every target; its figures. */
  private static List<Figure> measure(
      Config c,
      BenchReport r,
      Path tmp,
      Path home,
      Wrk wrk,
      String dataset,
      List<String> demoTruth,
      List<String> negatives)
      throws IOException, InterruptedException {
    boolean demo = dataset.equals("demo");
    String archive = (demo ? DEMO : MULTIFILE).baseName;
    Path datadir = Fixtures.extract(demo ? DEMO : MULTIFILE, tmp.resolve(dataset));
    List<String> positives = demo ? demoTruth : txids(MULTIFILE);
    Path filters = tmp.resolve(dataset + "-filters");
    Path work = tmp.resolve(dataset + "-work");
    double ingest =
        ServerProcess.ingest(datadir, filters, work, tmp.resolve(dataset + "-ingest.log"));
    Map<String, Path> files =
        requestFiles(
            tmp.resolve(dataset + "-requests"),
            positives,
            negatives,
            new Random(0x477B + dataset.hashCode()));
    Path jfr = home.resolve("bench-results").resolve("http-" + dataset + ".jfr");
    List<String> jvm = serverJvm(c, r, home, dataset, jfr);
    Optional<Path> bitcoind = CoreRestNode.binary();
    if (bitcoind.isEmpty()) {
      r.line("%s: Core REST skipped: $BITCOIND is not set to a bitcoind", dataset);
    }
    List<Figure> all = new ArrayList<>();
    try (CoreRestNode core =
            bitcoind.isEmpty()
                ? null
                : CoreRestNode.start(
                    bitcoind.get(),
                    demo ? DEMO : MULTIFILE,
                    Fixtures.extract(demo ? DEMO : MULTIFILE, tmp.resolve(dataset + "-core")),
                    tmp.resolve(dataset + "-bitcoind.log"));
        ServerProcess server =
            ServerProcess.serve(
                jvm,
                ServerProcess.serveArgs(datadir, filters, work),
                tmp.resolve(dataset + "-serve.log"),
                300)) {
      r.line("");
      r.line(
          "%s: %s (%,d txids in its txindex), ingest %.1f s, serve start to 'listening' %.1f s,"
              + " %s",
          dataset, archive, positives.size(), ingest, server.startSeconds(), server.baseUrl());
      List<String> targets = new ArrayList<>(TARGETS);
      if (!demo && c.paired()) { // measured beside the big store, rounds alternating
        targets.removeAll(StorePairRounds.TARGETS);
      }
      if (core != null) {
        targets.add(CORE_REST);
        r.line("%s: Core REST on a real bitcoind over a copy of it: %s", dataset, core.baseUrl());
      }
      Map<String, List<WrkRun>> runs = runTargets(c, wrk, targets, files, server, core);
      LivezPairs.Result pairs =
          LivezPairs.measure(wrk, server.baseUrl(), files, c, runs, c.seconds());
      report(c, r, dataset, archive, targets, runs, server, core, wrk.fresh(), all);
      pairs.print(r, dataset);
      r.summary(
          "neg_rps_over_livez" + (dataset.equals("fixture") ? "" : "_" + dataset), pairs.median());
    }
    if (c.jfr()) { // the server has exited: its recording is complete
      JfrTop.print(r, jfr, 15);
    }
    return all;
  }

  /** The server's JVM flags: with {@code --jfr}, a flight recording into {@code jfr}. */
  private static List<String> serverJvm(
      Config c, BenchReport r, Path home, String dataset, Path jfr) throws IOException {
    List<String> jvm = new ArrayList<>();
    if (c.jfr()) {
      Files.createDirectories(jfr.getParent());
      jvm.add("-XX:StartFlightRecording=filename=" + jfr + ",settings=profile,dumponexit=true");
      r.line("JFR: recording the %s server into %s", dataset, home.relativize(jfr));
    }
    return jvm;
  }

  /** Warms every target up, then runs {@code c.rounds()} rounds of them; the runs by target. */
  private static Map<String, List<WrkRun>> runTargets(
      Config c,
      Wrk tool,
      List<String> targets,
      Map<String, Path> files,
      ServerProcess server,
      @Nullable CoreRestNode core)
      throws IOException, InterruptedException {
    for (String t : targets) { // warm-up: JIT, connection pools, page cache
      runOne(tool, t, baseUrl(t, server, core), files, c, c.warmupSeconds());
    }
    Map<String, List<WrkRun>> runs = new LinkedHashMap<>();
    for (int round = 0; round < c.rounds(); round++) {
      // livez and negative, the pair the headline ratio compares, swap places every round, so
      // neither always runs right after the heavy batch run (and its garbage)
      List<String> order = new ArrayList<>(targets);
      if (round % 2 == 1) {
        Collections.swap(order, 0, 1);
      }
      for (String t : order) {
        runs.computeIfAbsent(t, k -> new ArrayList<>())
            .add(runOne(tool, t, baseUrl(t, server, core), files, c, c.seconds()));
      }
    }
    return runs;
  }

  /**
   * One wrk run of {@code target} against {@code url}: the fresh batches through {@link FreshBatch}
   * (its client cost kept there), the rest through the request-list script.
   */
  static WrkRun runOne(
      Wrk tool, String target, String url, Map<String, Path> files, Config c, int seconds)
      throws IOException, InterruptedException {
    if (target.equals(NEG_BATCH_FRESH)) {
      return timedRun(tool, target, url, files, c, seconds).wrk();
    }
    return WrkRun.run(
        tool.binary(),
        tool.script(),
        url,
        Filled.entry(files, target),
        postPath(target),
        target.equals(NEG_BATCH_BINARY),
        c.threads(),
        c.connections(),
        seconds);
  }

  /**
   * One wrk run of the binary batch {@code target} (fixed or fresh ids) under bash's {@code times}:
   * its figures and wrk's CPU.
   */
  static FreshBatch.Run timedRun(
      Wrk tool, String target, String url, Map<String, Path> files, Config c, int seconds)
      throws IOException, InterruptedException {
    Path bodies = Filled.entry(files, target);
    if (target.equals(NEG_BATCH_FRESH)) {
      return tool.fresh()
          .run(tool.binary(), url, bodies, "/v1/tx/lookup", c.threads(), c.connections(), seconds);
    }
    return FreshBatch.timed(
        WrkRun.requestCommand(
            tool.binary(),
            tool.script(),
            url,
            bodies,
            "/v1/tx/lookup",
            true,
            c.threads(),
            c.connections(),
            seconds));
  }

  /** The dataset's table and target lines; its figures into {@code all}. */
  private static void report(
      Config c,
      BenchReport r,
      String dataset,
      String archive,
      List<String> targets,
      Map<String, List<WrkRun>> runs,
      ServerProcess server,
      @Nullable CoreRestNode core,
      FreshBatch fresh,
      List<Figure> all)
      throws IOException, InterruptedException {
    List<List<String>> rows = new ArrayList<>();
    for (String t : targets) {
      Figure f = figure(dataset, t, Filled.entry(runs, t));
      all.add(f);
      rows.add(f.row(t, true));
    }

    r.table(
        dataset
            + " ("
            + archive
            + "): median of "
            + c.rounds()
            + " round(s) of "
            + c.seconds()
            + " s",
        TABLE_HEADER,
        rows);
    BatchPhaseSplit.print(r, dataset, server.baseUrl());
    if (targets.contains(NEG_BATCH_FRESH)) {
      fresh.printClientCost(r, dataset, server.baseUrl());
    }
    if (core != null) {
      double raw = find(all, dataset, RAW_TX).rps() / find(all, dataset, CORE_REST).rps();
      r.line(
          "%s: raw transactions at %.2fx Core REST's /rest/tx/<txid>.bin requests/s (target >="
              + " 1: %s)",
          dataset, raw, raw >= 1 ? "met" : "MISSED");
    }
  }

  private static void summarize(BenchReport r, List<Figure> all, Config c) {
    for (String dataset : c.datasets()) {
      String suffix = dataset.equals("fixture") ? "" : "_" + dataset;
      Figure livez = find(all, dataset, LIVEZ);
      Figure neg = find(all, dataset, NEGATIVE);
      Figure pos = find(all, dataset, "positive");
      r.summary("batch_ids_per_second" + suffix, find(all, dataset, "batch 1000").idsPerSecond());
      r.summary(
          "batch_neg_ids_per_second" + suffix, find(all, dataset, NEG_BATCH_BINARY).idsPerSecond());
      r.summary(
          "batch_neg_json_ids_per_second" + suffix,
          find(all, dataset, NEG_BATCH_JSON).idsPerSecond());
      r.summary(
          "batch_binary_fresh_ids_per_second" + suffix,
          find(all, dataset, NEG_BATCH_FRESH).idsPerSecond());
      r.summary("p99_ms_neg" + suffix, neg.p99());
      r.summary("p99_ms_pos" + suffix, pos.p99());
      r.summary("p99_ms_livez" + suffix, livez.p99());
      r.summary("rps_livez" + suffix, livez.rps());
      r.summary("rps_neg" + suffix, neg.rps());
      r.summary("rps_pos" + suffix, pos.rps());
      r.summary("rps_mix" + suffix, find(all, dataset, "50/50").rps());
      Figure raw = find(all, dataset, RAW_TX);
      r.summary("rps_rawtx" + suffix, raw.rps());
      r.summary("rps_merkle_proof" + suffix, find(all, dataset, MERKLE_PROOF).rps());
      all.stream()
          .filter(f -> f.dataset().equals(dataset) && f.target().equals(CORE_REST))
          .findFirst()
          .ifPresent(
              core -> {
                r.summary("rps_core_rest_tx" + suffix, core.rps());
                r.summary("rawtx_rps_over_core_rest" + suffix, raw.rps() / core.rps());
              });
    }
  }

  private static Figure find(List<Figure> all, String dataset, String target) {
    return all.stream()
        .filter(f -> f.dataset().equals(dataset) && f.target().equals(target))
        .findFirst()
        .orElseThrow();
  }

  /** Medians over rounds, and whether the status codes are the expected ones. */
  static Figure figure(String dataset, String target, List<WrkRun> runs) {
    double[] rps = runs.stream().mapToDouble(WrkRun::requestsPerSecond).toArray();
    double[] p50 = runs.stream().mapToDouble(WrkRun::p50Millis).toArray();
    double[] p99 = runs.stream().mapToDouble(WrkRun::p99Millis).toArray();
    long requests = runs.stream().mapToLong(WrkRun::requests).sum();
    long non2xx = runs.stream().mapToLong(WrkRun::non2xx).sum();
    long sock = runs.stream().mapToLong(WrkRun::socketErrors).sum();
    double m = BenchReport.median(rps);
    boolean batch = target.startsWith("batch");
    String check =
        switch (target) {
          case "negative" ->
              non2xx == requests ? "all 404" : "UNEXPECTED: " + (requests - non2xx) + " non-404";
          case "50/50" ->
              Math.abs(non2xx - requests / 2.0) <= 0.05 * requests + 2
                  ? "~half 404"
                  : "UNEXPECTED: " + non2xx + " 404 of " + requests;
          default -> non2xx == 0 ? "all 200" : "UNEXPECTED: " + non2xx + " non-2xx";
        };
    if (sock > 0) {
      check += ", " + sock + " socket errors";
    }
    return new Figure(
        dataset,
        target,
        m,
        batch ? m * idsPerRequest(target) : m,
        BenchReport.median(p50),
        BenchReport.median(p99),
        requests,
        non2xx,
        sock,
        check);
  }

  /** Txids a request of {@code target} asks about. */
  static int idsPerRequest(String target) {
    return switch (target) {
      case NEG_BATCH_BINARY, NEG_BATCH_JSON, NEG_BATCH_FRESH -> NEG_BATCH_IDS;
      case "batch 1000" -> BATCH_IDS;
      default -> 1;
    };
  }

  /**
   * One request file per target: paths for GETs, JSON bodies for the batches, hex of the binary
   * batches' bodies (internal byte order: each id's display hex reversed byte by byte).
   */
  static Map<String, Path> requestFiles(
      Path dir, List<String> positives, List<String> negatives, Random rnd) throws IOException {
    Files.createDirectories(dir);
    List<String> pos = sample(positives, 20_000, rnd);
    List<String> neg = sample(negatives, 20_000, rnd);
    List<String> mix = new ArrayList<>();
    for (int i = 0; i < Math.max(pos.size(), neg.size()); i++) {
      mix.add(pos.get(i % pos.size()));
      mix.add(neg.get(i % neg.size()));
    }
    List<String> bodies = new ArrayList<>();
    for (int b = 0; b < 32; b++) {
      List<String> ids = new ArrayList<>(BATCH_IDS);
      for (int i = 0; i < BATCH_IDS; i++) {
        List<String> from = i % 2 == 0 ? positives : negatives;
        ids.add(from.get(rnd.nextInt(from.size())));
      }
      bodies.add("[\"" + String.join("\",\"", ids) + "\"]");
    }
    List<String> negJson = new ArrayList<>();
    List<String> negBinary = new ArrayList<>();
    for (int b = 0; b < 8; b++) {
      List<String> ids = new ArrayList<>(NEG_BATCH_IDS);
      for (int i = 0; i < NEG_BATCH_IDS; i++) {
        ids.add(negatives.get(rnd.nextInt(negatives.size())));
      }
      negJson.add("[\"" + String.join("\",\"", ids) + "\"]");
      StringBuilder hex = new StringBuilder(NEG_BATCH_IDS * 64);
      for (String id : ids) {
        hex.append(HexFormat.of().formatHex(HashKeys.fromDisplayHex("txid", id)));
      }
      negBinary.add(hex.toString());
    }
    Map<String, Path> files = new LinkedHashMap<>();
    files.put(LIVEZ, Files.write(dir.resolve("livez.txt"), List.of("/livez")));
    files.put(NEGATIVE, Files.write(dir.resolve("negative.txt"), paths(neg)));
    files.put("positive", Files.write(dir.resolve("positive.txt"), paths(pos)));
    files.put("50/50", Files.write(dir.resolve("mix.txt"), paths(mix)));
    files.put("batch 1000", Files.write(dir.resolve("batch.txt"), bodies));
    files.put(NEG_BATCH_BINARY, Files.write(dir.resolve("batch-neg-binary.txt"), negBinary));
    files.put(NEG_BATCH_JSON, Files.write(dir.resolve("batch-neg-json.txt"), negJson));
    files.put(NEG_BATCH_FRESH, files.get(NEG_BATCH_BINARY)); // its first body, made fresh
    files.put(RAW_TX, Files.write(dir.resolve("raw.txt"), paths(pos, "/v1/tx/", "/raw")));
    files.put(
        MERKLE_PROOF,
        Files.write(dir.resolve("merkle.txt"), paths(pos, "/v1/tx/", "/merkle-proof")));
    files.put(CORE_REST, Files.write(dir.resolve("core.txt"), paths(pos, "/rest/tx/", ".bin")));
    return files;
  }

  private static List<String> paths(List<String> txids) {
    return paths(txids, "/v1/tx/", "");
  }

  private static List<String> paths(List<String> txids, String prefix, String suffix) {
    return txids.stream().map(t -> prefix + t + suffix).toList();
  }

  private static List<String> sample(List<String> from, int max, Random rnd) {
    List<String> copy = new ArrayList<>(from);
    Collections.shuffle(copy, rnd);
    return copy.subList(0, Math.min(max, copy.size()));
  }

  /** The txids (display hex) of a fixture's ground-truth table. */
  static List<String> txids(Archive a) throws IOException {
    return Fixtures.txRows(a).stream().map(Fixtures.TxRow::txidHex).toList();
  }

  /**
   * Real mainnet txids ({@code fixtures/mainnet-real-txids.tsv.gz}) that are not in {@code
   * exclude}.
   */
  static List<String> negatives(Set<String> exclude) throws IOException {
    return Fixtures.realTxidsAbsentFrom(exclude, Integer.MAX_VALUE);
  }

  /**
   * Where a target's request lines go: batches are POSTed to the batch route, the rest are GETs.
   */
  /** Where {@code target} is asked: Core REST is a target only beside a node. */
  private static String baseUrl(String target, ServerProcess server, @Nullable CoreRestNode core) {
    if (!target.equals(CORE_REST)) {
      return server.baseUrl();
    }
    if (core == null) {
      throw new IllegalStateException("Core REST is measured only beside a node");
    }
    return core.baseUrl();
  }

  private static @Nullable String postPath(String target) {
    return target.startsWith("batch") ? "/v1/tx/lookup" : null;
  }
}
