package io.bbfindex.benchmarks.eth;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.benchmarks.harness.ProjectHome;
import io.bbfindex.benchmarks.http.WrkRun;
import io.bbfindex.eth.EthConfig;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.testing.AnvilNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bbf-index bench eth [--quick]}: the Ethereum source against a real anvil on 127.0.0.1, all
 * in one run so the figures share the machine's load.
 *
 * <ul>
 *   <li>ingest: {@link EthIndex#ingestFinalRanges} of a chain filled with plain transfers, blocks/s
 *       and txs/s (into a fresh store each round; the median);
 *   <li>lookups per second over HTTP against a real server on 127.0.0.1: {@code GET
 *       /v1/eth/tx/{hash}} of random (absent) hashes and of the chain's own (known) hashes, and
 *       {@code POST /v1/eth/tx/lookup} of 100 absent hashes;
 *   <li>the node's own answers to the same questions: anvil's {@code eth_getTransactionByHash}, one
 *       call per request (absent and known hashes) and 100 per JSON-RPC batch, through the same
 *       HTTP client with the same connections;
 *   <li>negative lookups in process ({@link EthIndex#lookup}, 1 and 2 threads, the index following
 *       the node as {@code serve} runs it): what the index costs without HTTP.
 * </ul>
 *
 * The headline is like for like, {@code summary: eth_neg_http_over_node_http} and {@code
 * eth_pos_http_over_node_http} (the server's rate over the node's, same client: wrk when installed,
 * else the JDK's); {@code eth_batch_100_over_node_single_calls} is what a batch route gives a
 * client that would otherwise ask the node per hash; {@code eth_neg_in_process_over_node_http}
 * compares the in-process rate with the node's HTTP rate and says no more than that. The chain
 * holds at least 100,000 transactions. Each measurement is bounded in time and in count; the JDK
 * client checks every answer, wrk their status codes.
 */
public final class EthBench {

  /** Measurements stop after this many operations even if the time window is not over. */
  static final long MAX_OPS = 100_000_000L;

  /** Hashes per batched request, the same for the node and the server. */
  static final int BATCH = 100;

  private static final HexFormat HEX = HexFormat.of();
  private static final String NODE_METHOD = "eth_getTransactionByHash";

  /**
   * How much chain to generate and how long to measure.
   *
   * @param blocks blocks mined, each holding {@code txsPerBlock} transfers
   * @param rangeBits the index's range size ({@code 2^rangeBits} blocks)
   * @param ingestRounds ingests into fresh stores (the median is reported)
   * @param window how long each rate is measured (after a warm-up of a third of it)
   * @param clients concurrent HTTP clients, for the node and the server alike
   */
  record Plan(
      int blocks, int txsPerBlock, int rangeBits, int ingestRounds, Duration window, int clients) {
    // WHY at least 100,000 transactions even for --quick: positives must be looked up in a chain
    // whose hashes do not all sit in the node's and the index's caches (issue 29).
    static final Plan QUICK = new Plan(1_000, 100, 4, 3, Duration.ofSeconds(3), 2);
    static final Plan FULL = new Plan(2_000, 100, 4, 3, Duration.ofSeconds(10), 2);
  }

  private EthBench() {}

  /** {@code bench eth}: options parsed strictly by the benchmarks' entry point. */
  @Command(
      name = "eth",
      mixinStandardHelpOptions = true,
      description = {
        "Ethereum: ingest blocks/s and txs/s from a real anvil (100,000+ txs), lookups/s over HTTP"
            + " (absent and known hashes, batches) next to anvil's own eth_getTransactionByHash"
            + " through the same client, and negatives in process."
      })
  public static final class Suite implements Callable<Integer> {
    @Option(
        names = "--quick",
        description = "100,000 txs instead of 200,000 and shorter windows (a few minutes)")
    boolean quick;

    @Override
    public Integer call() throws Exception {
      Path home = ProjectHome.home();
      Optional<Path> anvil = anvilBinary(home);
      if (anvil.isEmpty()) {
        System.err.println(
            "bench eth: anvil is not installed; install it as the build does: npm install --prefix"
                + " eth-ingest/target/anvil @foundry-rs/anvil-linux-amd64@1.7.1 (or set"
                + " -Dbbf.anvil=PATH)");
        return 1;
      }
      // AnvilNode (the tests' harness) finds the binary through this property.
      System.setProperty("bbf.anvil", anvil.get().toString());
      BenchReport report = new BenchReport("eth", System.out);
      report.line("bench eth%s: anvil %s", quick ? " --quick" : "", anvil.get());
      report.environment();
      try (BenchTempDir tmp = BenchTempDir.create("bbf-bench-eth");
          AnvilNode node = AnvilNode.start("--no-mining")) {
        run(quick ? Plan.QUICK : Plan.FULL, node, tmp.path(), report);
      }
      report.finish(home);
      return 0;
    }
  }

  /** {@code -Dbbf.anvil}, else the binary eth-ingest's build installs under the project root. */
  static Optional<Path> anvilBinary(@Nullable Path home) {
    String configured = System.getProperty("bbf.anvil");
    Path bin =
        configured != null
            ? Path.of(configured)
            : home == null
                ? null
                : home.resolve(
                    "eth-ingest/target/anvil/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
    return bin != null && Files.isExecutable(bin) ? Optional.of(bin) : Optional.empty();
  }

  /**
   * Fills {@code node} (started with {@code --no-mining}), then measures and reports everything;
   * the figures end up in {@code report}'s summary.
   *
   * @throws IOException if the node, the store or the server fails
   * @throws IllegalStateException if an answer is wrong (a random hash found, a known one missed,
   *     an RPC call made for a negative)
   */
  static void run(Plan plan, AnvilNode node, Path dir, BenchReport report)
      throws IOException, InterruptedException {
    List<String> sent = fill(plan, node, report);
    Path store = ingest(plan, node, dir, report);
    String[] absent = randomHashes(65_536, 7);
    String[] known = sample(sent, 65_536, 11);

    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    try (http) {
      Rates nodeRates = nodeLookups(http, URI.create(node.url()), absent, known, plan);
      Optional<WrkLoad> wrk = WrkLoad.find(dir, plan.clients(), 4 * plan.clients());
      Optional<Rates> nodeWrk = Optional.empty();
      if (wrk.isPresent()) {
        nodeWrk = Optional.of(nodeLookupsWrk(wrk.get(), node.url(), absent, known, dir, plan));
      }

      EthConfig config =
          EthConfig.of(node.url(), store).withRangeBits(plan.rangeBits()).withFinalityDepth(0);
      EthIndex index = EthIndex.open(config);
      double[] inProcess = inProcessRates(index, sent, absent, plan);
      ServerRates served = serverRates(index, http, node.url(), absent, known, dir, plan, wrk);
      Measured m = new Measured(inProcess[0], inProcess[1], served, nodeRates, nodeWrk);
      printRates(plan, report, wrk, m);
      summarize(plan, report, wrk, m);
      history(http, dir, report);
    }
  }

  /**
   * Blocks whose transactions the pruned node keeps (anvil's {@code --transaction-block-keeper}).
   */
  static final int KEPT_BLOCKS = 16;

  /**
   * Ranges of 4 blocks over the pruned node. WHY small: anvil's keeper empties the transaction list
   * of older blocks too (geth's {@code --history.transactions} prunes only the lookup index), and a
   * range is read from the node when it is complete, so it must complete well within the window.
   */
  static final int PRUNED_RANGE_BITS = 2;

  /** Blocks mined on the pruned node: four times what it keeps. */
  static final int PRUNED_CHAIN_BLOCKS = 4 * KEPT_BLOCKS;

  /**
   * What a node that keeps only recent transaction lookups (geth's {@code --history.transactions},
   * anvil's {@code --transaction-block-keeper}) no longer answers: a second anvil keeping {@link
   * #KEPT_BLOCKS} blocks' transactions, followed by the index while {@link #PRUNED_CHAIN_BLOCKS}
   * blocks of transfers are mined; then every hash asked of both. The index must answer all.
   */
  private static void history(HttpClient http, Path dir, BenchReport report)
      throws IOException, InterruptedException {
    List<String> sent = new ArrayList<>();
    int nodeAnswers = 0;
    int indexAnswers = 0;
    try (AnvilNode node =
            AnvilNode.start(
                "--no-mining", "--transaction-block-keeper", Integer.toString(KEPT_BLOCKS));
        EthIndex index =
            EthIndex.open(
                EthConfig.of(node.url(), dir.resolve("eth-pruned-node"))
                    .withRangeBits(PRUNED_RANGE_BITS)
                    .withFinalityDepth(0))) {
      for (int b = 0; b < PRUNED_CHAIN_BLOCKS; b++) {
        sent.addAll(node.sendTransfers(50));
        node.mine(1);
        if (b % (1 << PRUNED_RANGE_BITS) == 0) {
          index.poll(); // as serve's follower does, well within the node's window
        }
      }
      index.poll();
      for (int from = 0; from < sent.size(); from += 500) {
        List<String> chunk = sent.subList(from, Math.min(sent.size(), from + 500));
        StringBuilder body = new StringBuilder("[");
        for (int k = 0; k < chunk.size(); k++) {
          body.append(k == 0 ? "" : ",").append(rpc(k, chunk.get(k)));
        }
        String answer = send(http, post(URI.create(node.url()), body.append(']').toString()), 200);
        nodeAnswers += chunk.size() - occurrences(answer, "\"result\":null");
        for (String h : chunk) {
          indexAnswers += index.lookup(HEX.parseHex(h.substring(2)), 0).isPresent() ? 1 : 0;
        }
      }
    } catch (EthIndex.CatchingUpException e) {
      throw new IllegalStateException("the index following the pruned node: " + e.getMessage(), e);
    }
    if (indexAnswers != sent.size()) {
      throw new IllegalStateException(
          "the index answered " + indexAnswers + " of the pruned node's " + sent.size() + " txs");
    }
    report.line(
        "history: anvil --transaction-block-keeper %d, %d blocks of 50 transfers: the node answers"
            + " %d of %d hashes (eth_getTransactionByHash), bbf-index (following it) %d",
        KEPT_BLOCKS, PRUNED_CHAIN_BLOCKS, nodeAnswers, sent.size(), indexAnswers);
    report.summary("eth_history_node_answered_fraction", (double) nodeAnswers / sent.size());
    report.summary("eth_history_bbf_answered_fraction", (double) indexAnswers / sent.size());
  }

  /**
   * In-process negative lookups while the index follows the node: one thread (the first third of
   * the window warms up) and {@code plan.clients()} threads; no RPC call may be made. Closes the
   * index on failure.
   */
  private static double[] inProcessRates(
      EthIndex index, List<String> sent, String[] absent, Plan plan) throws InterruptedException {
    double inProcess;
    double inProcessAll;
    try {
      index.poll(); // the newest blocks into the tip; "absent" is answered once caught up
      // As serve runs it: following the node (the service below starts nothing more).
      index.startFollowing();
      checkKnown(index, sent);
      long calls = index.rpcCalls().of(NODE_METHOD);
      inProcess(index, absent, plan.window().dividedBy(3));
      inProcess = inProcess(index, absent, plan.window());
      inProcessAll = inProcessThreads(index, absent, plan.clients(), plan.window());
      requireNoCalls(index, calls);
    } catch (IOException | RuntimeException | EthIndex.CatchingUpException e) {
      index.close();
      throw new IllegalStateException("in-process lookups failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      index.close();
      throw e;
    }
    return new double[] {inProcess, inProcessAll};
  }

  /**
   * The served rates: through the JDK client, through wrk when installed (and then the paired
   * rounds against the node); RPC calls made.
   */
  private record ServerRates(
      Rates jdk, Optional<Rates> wrk, Optional<Paired> paired, long negativeCalls) {}

  /** Rounds of the node's and the server's wrk rates back to back (the headline's median). */
  static final int PAIRED_ROUNDS = 3;

  /** Per paired round, the server's rate over the node's: absent and known hashes. */
  record Paired(double[] negative, double[] positive) {}

  /**
   * {@link #PAIRED_ROUNDS} rounds, each measuring the node and the server back to back with the
   * same wrk (the side that goes first alternates), for absent and known hashes: the ratio of each
   * round shares that round's load, which the rates measured minutes apart do not.
   */
  private static Paired paired(
      WrkLoad wrk,
      String nodeUrl,
      String baseUrl,
      String[] absent,
      String[] known,
      Path dir,
      Plan plan)
      throws IOException, InterruptedException {
    List<String> nodeMiss = new ArrayList<>();
    List<String> nodeHit = new ArrayList<>();
    List<String> getMiss = new ArrayList<>();
    List<String> getHit = new ArrayList<>();
    for (int i = 0; i < 4096; i++) {
      nodeMiss.add(rpc(i, absent[i]));
      nodeHit.add(rpc(i, known[i]));
      getMiss.add("/v1/eth/tx/" + absent[i]);
      getHit.add("/v1/eth/tx/" + known[i]);
    }
    Path nm = Files.write(dir.resolve("pair-node-miss.txt"), nodeMiss);
    Path nh = Files.write(dir.resolve("pair-node-hit.txt"), nodeHit);
    Path gm = Files.write(dir.resolve("pair-get-miss.txt"), getMiss);
    Path gh = Files.write(dir.resolve("pair-get-hit.txt"), getHit);
    double[] negative = new double[PAIRED_ROUNDS];
    double[] positive = new double[PAIRED_ROUNDS];
    for (int r = 0; r < PAIRED_ROUNDS; r++) {
      boolean nodeFirst = r % 2 == 0;
      negative[r] = pair(wrk, nodeFirst, nodeUrl, nm, baseUrl, gm, true, plan);
      positive[r] = pair(wrk, !nodeFirst, nodeUrl, nh, baseUrl, gh, false, plan);
    }
    return new Paired(negative, positive);
  }

  /** One paired round: the server's wrk rate over the node's, status codes checked. */
  private static double pair(
      WrkLoad wrk,
      boolean nodeFirst,
      String nodeUrl,
      Path nodeLines,
      String baseUrl,
      Path getLines,
      boolean absent,
      Plan plan)
      throws IOException, InterruptedException {
    WrkRun node = null;
    WrkRun server = null;
    for (int side = 0; side < 2; side++) {
      if ((side == 0) == nodeFirst) {
        node = wrk.run(nodeUrl, nodeLines, "/", seconds(plan));
      } else {
        server = wrk.run(baseUrl, getLines, null, seconds(plan));
      }
    }
    WrkRun n = java.util.Objects.requireNonNull(node);
    WrkRun g = java.util.Objects.requireNonNull(server);
    requireStatus(n, 0, "anvil, paired round");
    requireStatus(g, absent ? g.requests() : 0, "bbf-index GET, paired round");
    return g.requestsPerSecond() / n.requestsPerSecond();
  }

  /** Serves the index (the service owns and closes it) and measures its negatives over HTTP. */
  private static ServerRates serverRates(
      EthIndex index,
      HttpClient http,
      String nodeUrl,
      String[] absent,
      String[] known,
      Path dir,
      Plan plan,
      Optional<WrkLoad> wrk)
      throws IOException, InterruptedException {
    Rates serverRates;
    Optional<Rates> serverWrk = Optional.empty();
    Optional<Paired> paired = Optional.empty();
    long negativeCalls;
    // the service owns the index from here on and closes it
    try (Service service =
        Service.start(
            null, // Ethereum only: no Bitcoin route
            index,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      long calls = index.rpcCalls().of(NODE_METHOD);
      serverRates = serverLookups(http, service.server().baseUrl(), absent, known, plan);
      if (wrk.isPresent()) {
        serverWrk =
            Optional.of(
                serverLookupsWrk(wrk.get(), service.server().baseUrl(), absent, known, dir, plan));
        paired =
            Optional.of(
                paired(wrk.get(), nodeUrl, service.server().baseUrl(), absent, known, dir, plan));
      }
      requireNoCalls(index, calls);
      negativeCalls = index.rpcCalls().of(NODE_METHOD);
    }
    return new ServerRates(serverRates, serverWrk, paired, negativeCalls);
  }

  /**
   * The negative rates measured: in process on one thread and on {@code plan.clients()} threads,
   * served over HTTP, and the node's own misses (through the JDK client, through wrk if installed).
   */
  private record Measured(
      double inProcess,
      double inProcessAll,
      ServerRates served,
      Rates nodeRates,
      Optional<Rates> nodeWrk) {}

  /** The rates table. */
  private static void printRates(Plan plan, BenchReport report, Optional<WrkLoad> wrk, Measured m) {
    String jdk = plan.clients() + " clients, JDK HttpClient, HTTP/1.1 keep-alive";
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        List.of(
            "bbf-index in process, no HTTP (1 thread)",
            BenchReport.format(m.inProcess()),
            "",
            "",
            ""));
    rows.add(
        List.of(
            "bbf-index in process, no HTTP (" + plan.clients() + " threads)",
            BenchReport.format(m.inProcessAll()),
            "",
            "",
            ""));
    rows.add(rateRow("bbf-index over HTTP", m.served().jdk(), jdk));
    rows.add(rateRow("anvil eth_getTransactionByHash", m.nodeRates(), jdk));
    if (wrk.isPresent()) {
      rows.add(
          rateRow("bbf-index over HTTP", m.served().wrk().orElseThrow(), wrk.get().describe()));
      rows.add(
          rateRow(
              "anvil eth_getTransactionByHash", m.nodeWrk().orElseThrow(), wrk.get().describe()));
    } else {
      report.line("(wrk is not installed: the HTTP figures are the JDK client's only)");
    }
    report.table(
        "lookups per second: random (absent) hashes, and hashes of the chain's transactions"
            + " (known); the JDK client checks every answer, wrk the status codes; no RPC call made"
            + " for a negative",
        List.of(
            "",
            "absent, one per request",
            "absent, " + BATCH + " per request",
            "known, one per request",
            "client"),
        rows);
  }

  /**
   * The summary lines. The headline is like for like: bbf-index over HTTP against the node over
   * HTTP, through the same client with the same connections ({@code eth_neg_http_over_node_http},
   * {@code eth_pos_http_over_node_http}); then what the node has no single call for (a batch of
   * {@link #BATCH} hashes in one request against as many calls); the in-process figure, which no
   * HTTP client sees, is labelled as such.
   */
  private static void summarize(Plan plan, BenchReport report, Optional<WrkLoad> wrk, Measured m) {
    double inProcess = m.inProcess();
    double inProcessAll = m.inProcessAll();
    // Server and node through the same client: wrk when installed, else the JDK's.
    Rates httpServer = m.served().wrk().orElse(m.served().jdk());
    Rates httpNode = m.nodeWrk().orElse(m.nodeRates());
    // With wrk, the median of the paired rounds (each ratio within one round's load); else the
    // JDK client's rates, measured minutes apart.
    Optional<Paired> paired = m.served().paired();
    double negHttp =
        paired
            .map(p -> BenchReport.median(p.negative()))
            .orElse(httpServer.single() / httpNode.single());
    double posHttp =
        paired
            .map(p -> BenchReport.median(p.positive()))
            .orElse(httpServer.positive() / httpNode.positive());
    paired.ifPresent(
        p ->
            report.line(
                "paired rounds (node and server back to back, wrk): absent %s, known %s",
                ratios(p.negative()), ratios(p.positive())));
    double batchOverCalls = httpServer.batched() / httpNode.single();
    double inProcessBest = Math.max(inProcess, inProcessAll);
    report.line(
        "over HTTP, same client (%s): absent %sx anvil's eth_getTransactionByHash, known %sx;"
            + " a batch of %d hashes in one request %sx as many single calls to anvil",
        wrk.isPresent() ? wrk.get().describe() : "JDK HttpClient, " + plan.clients() + " clients",
        BenchReport.format(negHttp),
        BenchReport.format(posHttp),
        BATCH,
        BenchReport.format(batchOverCalls));
    report.line(
        "in process (EthIndex.lookup, no HTTP on bbf-index's side; not like for like) %sx anvil's"
            + " misses over HTTP",
        BenchReport.format(inProcessBest / httpNode.single()));
    report.summary("eth_neg_lookups_per_s_in_process", inProcess);
    report.summary("eth_neg_lookups_per_s_in_process_" + plan.clients() + "_threads", inProcessAll);
    report.summary("eth_http_neg_per_s_get", httpServer.single());
    report.summary("eth_http_neg_per_s_batched_" + BATCH, httpServer.batched());
    report.summary("eth_http_pos_per_s_get", httpServer.positive());
    report.summary("eth_node_miss_per_s", httpNode.single());
    report.summary("eth_node_miss_per_s_batched_" + BATCH, httpNode.batched());
    report.summary("eth_node_hit_per_s", httpNode.positive());
    report.summary("eth_http_client", wrk.isPresent() ? "wrk" : "jdk");
    report.summary("eth_neg_rpc_calls", m.served().negativeCalls());
    report.summary("eth_neg_http_over_node_http", negHttp);
    paired.ifPresent(p -> report.summary("eth_http_paired_rounds", p.negative().length));
    report.summary("eth_pos_http_over_node_http", posHttp);
    report.summary("eth_batch_" + BATCH + "_over_node_single_calls", batchOverCalls);
    report.summary(
        "eth_http_batched_over_node_batched_" + BATCH, httpServer.batched() / httpNode.batched());
    report.summary("eth_neg_in_process_over_node_http", inProcessBest / httpNode.single());
  }

  private static String ratios(double[] r) {
    List<String> out = new ArrayList<>();
    for (double x : r) {
      out.add(BenchReport.format(x) + "x");
    }
    return String.join(", ", out) + " (median " + BenchReport.format(BenchReport.median(r)) + "x)";
  }

  /** Mines {@code plan.blocks()} blocks of transfers; the hashes sent. */
  private static List<String> fill(Plan plan, AnvilNode node, BenchReport report)
      throws IOException {
    long t0 = System.nanoTime();
    List<String> sent = new ArrayList<>(plan.blocks() * plan.txsPerBlock());
    for (int b = 0; b < plan.blocks(); b++) {
      sent.addAll(node.sendTransfers(plan.txsPerBlock()));
      node.mine(1);
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    report.line(
        "anvil: %s transfers in %d blocks sent and mined in %.1f s (%s txs/s)",
        BenchReport.count(sent.size()),
        plan.blocks(),
        secs,
        BenchReport.format(sent.size() / secs));
    report.summary("eth_txs", sent.size());
    report.summary("eth_blocks", node.blockNumber() + 1);
    return sent;
  }

  /**
   * Ingests the final ranges into fresh stores, {@code plan.ingestRounds()} times; the first store.
   */
  private static Path ingest(Plan plan, AnvilNode node, Path dir, BenchReport report)
      throws IOException {
    double[] blocksPerS = new double[plan.ingestRounds()];
    double[] txsPerS = new double[plan.ingestRounds()];
    List<List<String>> rows = new ArrayList<>();
    for (int r = 0; r < plan.ingestRounds(); r++) {
      Path store = dir.resolve("eth-" + r);
      EthConfig config =
          EthConfig.of(node.url(), store).withRangeBits(plan.rangeBits()).withFinalityDepth(0);
      try (EthIndex index = EthIndex.open(config)) {
        long t0 = System.nanoTime();
        int ranges = index.ingestFinalRanges(line -> {});
        double secs = (System.nanoTime() - t0) / 1e9;
        long blocks = (long) ranges << plan.rangeBits();
        long txs = index.status().historyTxs();
        blocksPerS[r] = blocks / secs;
        txsPerS[r] = txs / secs;
        rows.add(
            List.of(
                Integer.toString(r + 1),
                Integer.toString(ranges),
                BenchReport.count(blocks),
                BenchReport.count(txs),
                String.format(java.util.Locale.ROOT, "%.2f", secs),
                BenchReport.format(blocksPerS[r]),
                BenchReport.format(txsPerS[r])));
      }
    }
    report.table(
        "ingest of the final ranges (ranges of " + (1 << plan.rangeBits()) + " blocks, depth 0)",
        List.of("round", "ranges", "blocks", "txs", "s", "blocks/s", "txs/s"),
        rows);
    report.summary("eth_ingest_blocks_per_s", BenchReport.median(blocksPerS));
    report.summary("eth_ingest_txs_per_s", BenchReport.median(txsPerS));
    return dir.resolve("eth-0");
  }

  /** Every sent transfer must be found: the rates below are those of a working index. */
  private static void checkKnown(EthIndex index, List<String> sent)
      throws EthIndex.CatchingUpException {
    for (String hash : sent) {
      if (index.lookup(HEX.parseHex(hash.substring(2)), 0).isEmpty()) {
        throw new IllegalStateException("a sent transfer is not found: " + hash);
      }
    }
  }

  private static void requireNoCalls(EthIndex index, long before) {
    long after = index.rpcCalls().of(NODE_METHOD);
    if (after != before) {
      throw new IllegalStateException(
          (after - before) + " " + NODE_METHOD + " calls during negative lookups");
    }
  }

  /** In-process lookups per second of the random {@code absent} hashes, one thread. */
  private static double inProcess(EthIndex index, String[] absent, Duration window)
      throws EthIndex.CatchingUpException {
    return inProcess(index, keys(absent), 0, window);
  }

  /**
   * In-process lookups per second from {@code threads} threads at once (the machine's cores, as the
   * node gets them under wrk), their sum.
   */
  private static double inProcessThreads(
      EthIndex index, String[] absent, int threads, Duration window) throws InterruptedException {
    byte[] keys = keys(absent);
    double[] rates = new double[threads];
    AtomicReference<@Nullable Exception> failure = new AtomicReference<>();
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int k = t;
      started.add(
          Thread.ofPlatform()
              .name("bench-eth-lookups-" + t)
              .start(
                  () -> {
                    try {
                      rates[k] = inProcess(index, keys, k * 7919L, window);
                    } catch (EthIndex.CatchingUpException | RuntimeException e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    double sum = 0;
    for (int t = 0; t < threads; t++) {
      started.get(t).join();
      sum += rates[t];
    }
    if (failure.get() != null) {
      throw new IllegalStateException(failure.get().getMessage(), failure.get());
    }
    return sum;
  }

  private static byte[] keys(String[] hashes) {
    byte[] keys = new byte[hashes.length * 32];
    for (int i = 0; i < hashes.length; i++) {
      System.arraycopy(HEX.parseHex(hashes[i].substring(2)), 0, keys, i * 32, 32);
    }
    return keys;
  }

  /** Lookups per second of the 32-byte {@code keys}, from the {@code first}-th on, one thread. */
  private static double inProcess(EthIndex index, byte[] keys, long first, Duration window)
      throws EthIndex.CatchingUpException {
    int end = keys.length;
    // The key's offset steps through the array and wraps: no division per lookup in the loop.
    int off = (int) (first % (end / 32)) * 32;
    long start = System.nanoTime();
    long deadline = start + window.toNanos();
    long done = 0;
    while (System.nanoTime() < deadline && done < MAX_OPS) {
      for (int i = 0; i < 1024; i++) {
        if (index.lookup(keys, off).isPresent()) {
          throw new IllegalStateException(
              "a random hash was found: 0x" + HEX.formatHex(keys, off, off + 32));
        }
        off += 32;
        if (off == end) {
          off = 0;
        }
      }
      done += 1024;
    }
    return done / ((System.nanoTime() - start) / 1e9);
  }

  /**
   * Absent hashes per second, one per request and in batches of {@link #BATCH}; known hashes per
   * second, one per request.
   */
  record Rates(double single, double batched, double positive) {}

  private static Rates nodeLookups(
      HttpClient http, URI node, String[] absent, String[] known, Plan plan)
      throws IOException, InterruptedException {
    Request single =
        i -> {
          String body = rpc(i, absent[i % absent.length]);
          requireNulls(send(http, post(node, body), 200), 1);
          return 1;
        };
    Request batched =
        i -> {
          StringBuilder body = new StringBuilder("[");
          for (int k = 0; k < BATCH; k++) {
            body.append(k == 0 ? "" : ",").append(rpc(k, absent[(i + k) % absent.length]));
          }
          requireNulls(send(http, post(node, body.append(']').toString()), 200), BATCH);
          return BATCH;
        };
    Request positive =
        i -> {
          String hash = known[i % known.length];
          String answer = send(http, post(node, rpc(i, hash)), 200);
          if (!answer.contains("\"blockHash\":\"0x") || !answer.contains(hash)) {
            throw new IllegalStateException("anvil did not place " + hash + ": " + answer);
          }
          return 1;
        };
    return new Rates(rate(single, plan), rate(batched, plan), rate(positive, plan));
  }

  private static Rates serverLookups(
      HttpClient http, String baseUrl, String[] absent, String[] known, Plan plan)
      throws IOException, InterruptedException {
    Request single =
        i -> {
          URI uri = URI.create(baseUrl + "/v1/eth/tx/" + absent[i % absent.length]);
          send(
              http, HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(), 404);
          return 1;
        };
    URI batchUri = URI.create(baseUrl + "/v1/eth/tx/lookup");
    Request batched =
        i -> {
          StringBuilder body = new StringBuilder("[");
          for (int k = 0; k < BATCH; k++) {
            body.append(k == 0 ? "\"" : ",\"").append(absent[(i + k) % absent.length]).append('"');
          }
          String answer = send(http, post(batchUri, body.append(']').toString()), 200);
          int absentCount = occurrences(answer, "\"present\":false");
          if (absentCount != BATCH) {
            throw new IllegalStateException(
                absentCount + " of " + BATCH + " random hashes absent: " + answer);
          }
          return BATCH;
        };
    Request positive =
        i -> {
          String hash = known[i % known.length];
          URI uri = URI.create(baseUrl + "/v1/eth/tx/" + hash);
          String answer =
              send(
                  http,
                  HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                  200);
          if (!answer.contains("\"status\":\"confirmed\"")) {
            throw new IllegalStateException("bbf-index did not place " + hash + ": " + answer);
          }
          return 1;
        };
    return new Rates(rate(single, plan), rate(batched, plan), rate(positive, plan));
  }

  private static List<String> rateRow(String what, Rates rates, String client) {
    return List.of(
        what,
        BenchReport.format(rates.single()),
        BenchReport.format(rates.batched()),
        BenchReport.format(rates.positive()),
        client);
  }

  private static Rates nodeLookupsWrk(
      WrkLoad wrk, String nodeUrl, String[] absent, String[] known, Path dir, Plan plan)
      throws IOException, InterruptedException {
    List<String> single = new ArrayList<>();
    List<String> hits = new ArrayList<>();
    List<String> batched = new ArrayList<>();
    for (int i = 0; i < 4096; i++) {
      single.add(rpc(i, absent[i]));
      hits.add(rpc(i, known[i]));
    }
    for (int i = 0; i < 256; i++) {
      StringBuilder body = new StringBuilder("[");
      for (int k = 0; k < BATCH; k++) {
        body.append(k == 0 ? "" : ",").append(rpc(k, absent[(i * BATCH + k) % absent.length]));
      }
      batched.add(body.append(']').toString());
    }
    WrkRun one =
        wrk.run(nodeUrl, Files.write(dir.resolve("node-single.txt"), single), "/", seconds(plan));
    WrkRun many =
        wrk.run(nodeUrl, Files.write(dir.resolve("node-batch.txt"), batched), "/", seconds(plan));
    WrkRun found =
        wrk.run(nodeUrl, Files.write(dir.resolve("node-hits.txt"), hits), "/", seconds(plan));
    requireStatus(one, 0, "anvil, single calls");
    requireStatus(many, 0, "anvil, batches");
    requireStatus(found, 0, "anvil, known hashes");
    return new Rates(
        one.requestsPerSecond(), many.requestsPerSecond() * BATCH, found.requestsPerSecond());
  }

  private static Rates serverLookupsWrk(
      WrkLoad wrk, String baseUrl, String[] absent, String[] known, Path dir, Plan plan)
      throws IOException, InterruptedException {
    List<String> paths = new ArrayList<>();
    List<String> hits = new ArrayList<>();
    List<String> batches = new ArrayList<>();
    for (int i = 0; i < 4096; i++) {
      paths.add("/v1/eth/tx/" + absent[i]);
      hits.add("/v1/eth/tx/" + known[i]);
    }
    for (int i = 0; i < 256; i++) {
      StringBuilder body = new StringBuilder("[");
      for (int k = 0; k < BATCH; k++) {
        body.append(k == 0 ? "\"" : ",\"")
            .append(absent[(i * BATCH + k) % absent.length])
            .append('"');
      }
      batches.add(body.append(']').toString());
    }
    WrkRun one = wrk.run(baseUrl, Files.write(dir.resolve("get.txt"), paths), null, seconds(plan));
    WrkRun many =
        wrk.run(
            baseUrl,
            Files.write(dir.resolve("batch.txt"), batches),
            "/v1/eth/tx/lookup",
            seconds(plan));
    WrkRun found =
        wrk.run(baseUrl, Files.write(dir.resolve("hits.txt"), hits), null, seconds(plan));
    requireStatus(one, one.requests(), "bbf-index GET (every answer a 404)");
    requireStatus(many, 0, "bbf-index batches");
    requireStatus(found, 0, "bbf-index GET of known hashes (every answer a 200)");
    return new Rates(
        one.requestsPerSecond(), many.requestsPerSecond() * BATCH, found.requestsPerSecond());
  }

  /** wrk's run length: the plan's window in whole seconds, at least 1. */
  private static int seconds(Plan plan) {
    return (int) Math.max(1, plan.window().toSeconds());
  }

  private static void requireStatus(WrkRun r, long non2xx, String what) {
    if (r.requests() == 0 || r.non2xx() != non2xx) {
      throw new IllegalStateException(
          what
              + ": "
              + r.non2xx()
              + " of "
              + r.requests()
              + " answers outside 2xx, expected "
              + non2xx);
    }
  }

  /** One request of a measurement: {@code i} picks the hashes; returns how many it asked. */
  private interface Request {
    int send(int i) throws IOException, InterruptedException;
  }

  /**
   * Hashes per second of {@code request} from {@code plan.clients()} threads over {@code
   * plan.window()}, after a warm-up of a third of it.
   */
  private static double rate(Request request, Plan plan) throws IOException, InterruptedException {
    measure(request, plan.clients(), plan.window().dividedBy(3));
    return measure(request, plan.clients(), plan.window());
  }

  private static double measure(Request request, int clients, Duration window)
      throws IOException, InterruptedException {
    AtomicLong hashes = new AtomicLong();
    AtomicLong next = new AtomicLong();
    AtomicReference<@Nullable Exception> failure = new AtomicReference<>();
    long start = System.nanoTime();
    long deadline = start + window.toNanos();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      threads.add(
          Thread.ofPlatform()
              .name("bench-eth-client-" + c)
              .start(
                  () -> {
                    try {
                      while (System.nanoTime() < deadline
                          && hashes.get() < MAX_OPS
                          && failure.get() == null) {
                        int i = (int) (next.getAndAdd(BATCH) & Integer.MAX_VALUE);
                        hashes.addAndGet(request.send(i));
                      }
                    } catch (IOException | InterruptedException | RuntimeException e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    double secs = (System.nanoTime() - start) / 1e9;
    Exception e = failure.get();
    if (e instanceof IOException io) {
      throw io;
    }
    if (e != null) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return hashes.get() / secs;
  }

  private static HttpRequest post(URI uri, String body) {
    return HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private static String send(HttpClient http, HttpRequest request, int expected)
      throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != expected) {
      throw new IllegalStateException(
          request.uri() + ": HTTP " + r.statusCode() + " (expected " + expected + "): " + r.body());
    }
    return r.body();
  }

  private static String rpc(int id, String hash) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\""
        + NODE_METHOD
        + "\",\"params\":[\""
        + hash
        + "\"]}";
  }

  /** The node must answer {@code null} (unknown) for every random hash. */
  private static void requireNulls(String answer, int expected) {
    int nulls = occurrences(answer, "\"result\":null");
    if (nulls != expected) {
      throw new IllegalStateException(
          "anvil answered " + nulls + " of " + expected + " random hashes with null: " + answer);
    }
  }

  private static int occurrences(String text, String what) {
    int n = 0;
    for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + what.length())) {
      n++;
    }
    return n;
  }

  /** {@code count} hashes drawn from {@code hashes} (seeded: the same run to run). */
  static String[] sample(List<String> hashes, int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      out[i] = hashes.get(random.nextInt(hashes.size()));
    }
    return out;
  }

  /** {@code count} random {@code 0x}-prefixed hashes (seeded: the same run to run). */
  static String[] randomHashes(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    String[] out = new String[count];
    byte[] b = new byte[32];
    for (int i = 0; i < count; i++) {
      random.nextBytes(b);
      out[i] = "0x" + HEX.formatHex(b);
    }
    return out;
  }
}
