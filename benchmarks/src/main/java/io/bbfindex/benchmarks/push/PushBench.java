package io.bbfindex.benchmarks.push;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.benchmarks.follow.FollowBench;
import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.benchmarks.harness.ProjectHome;
import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.bitcoinj.core.TransactionOutPoint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bbf-index bench push [--quick]}: issue 27's acceptance at scale. A real regtest node
 * ({@code $BITCOIND}) gets {@code --subscribers} independent mempool txs ({@link PushChain}); the
 * real {@code serve --follow}, in its own JVM, follows it; one client JVM ({@link PushClients})
 * subscribes to each tx once, half over the WebSocket, half over Server-Sent Events; then one
 * {@code generateblock} confirms {@code --confirm} of them. Summary: {@code push_notify_p99_ms}
 * (from the start of the mining RPC call to each client's receipt; target 100 ms), {@code
 * push_notified_fraction} (the confirmed txs' subscribers notified exactly once; must be 1.0, with
 * no notification at all to the others) and the server's resident memory per 1,000 idle subscribers
 * (its RSS after a full GC, against the same process before subscribing).
 */
@Command(
    name = "push",
    description = {
      "10,000 push subscribers (WebSocket and SSE) of a 'serve --follow' of a regtest node, one"
          + " block confirming 4,000 of their txs: notify latency p99 from the mining call,"
          + " notified exactly once, RSS per 1,000 idle subscribers."
    })
public final class PushBench implements Callable<Integer> {
  static final double TARGET_P99_MS = 100;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * RPC threads for the concurrent {@code sendrawtransaction}s of {@link PushChain}, and no mempool
   * consistency check: regtest checks the whole mempool after every change by default, which makes
   * filling it quadratic (10,000 txs: 4 a second at the end instead of hundreds).
   */
  private static final List<String> NODE_OPTIONS =
      List.of("-rpcthreads=16", "-rpcworkqueue=256", "-checkmempool=0");

  /** Concurrent {@code sendrawtransaction} calls: each waits for the node's callbacks. */
  private static final int SEND_THREADS = 16;

  @Option(
      names = "--quick",
      description = "20 s idle before the memory sample and the block (default 60 s)")
  boolean quick;

  @Option(
      names = "--subscribers",
      description = "subscribers, each tracking its own mempool tx (default 10,000)")
  int subscribers = 10_000;

  @Option(names = "--confirm", description = "txs the mined block confirms (default 4,000)")
  int confirm = 4_000;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this help")
  boolean help;

  PushBench() {}

  @Override
  public Integer call() throws Exception {
    if (subscribers < 2 || confirm < 1 || confirm > subscribers) {
      System.err.println(
          "bbf-index bench push: --subscribers must be >= 2 and --confirm in 1..subscribers");
      return 2;
    }
    Optional<Path> bitcoind = RegtestNode.binary(RegtestNode.CURRENT);
    if (bitcoind.isEmpty()) {
      System.err.println("bbf-index bench push: needs $BITCOIND (a bitcoind of 24 or later)");
      return 2;
    }
    BenchReport r = new BenchReport(quick ? "push-quick" : "push", System.out);
    boolean passed;
    try (BenchTempDir tmp = BenchTempDir.create("bbf-bench-push-");
        RegtestNode node = RegtestNode.start(bitcoind.get(), true, NODE_OPTIONS)) {
      passed = run(r, node, tmp.path());
    }
    r.finish(ProjectHome.home());
    return passed ? 0 : 1;
  }

  private boolean run(BenchReport r, RegtestNode node, Path tmp) throws Exception {
    // idle long enough for the server to have read every watched tx's inputs from the node (one
    // call each, FollowEvents) before the block: the steady state of idle subscribers
    int idleSeconds = quick ? 20 : 60;
    r.line(
        "bbf-index bench push%s: %,d subscribers (even: WebSocket track-tx, odd: SSE), each"
            + " tracking its own mempool tx; one generateblock confirms %,d of them; %d s idle"
            + " before the memory sample",
        quick ? " --quick" : "", subscribers, confirm, idleSeconds);
    r.environment();
    PushChain chain = PushChain.on(node);
    long t = System.nanoTime();
    List<TransactionOutPoint> coins = chain.prepare(subscribers);
    node.stop(); // Core writes its block index at shutdown: serve's snapshot needs it
    node.restart(NODE_OPTIONS);
    // The wallet is not needed (the coins are anyone-can-spend), and each sendrawtransaction
    // waits for the validation callbacks, which a loaded wallet slows down.
    node.rpc().call("unloadwallet", "w");
    r.line("coins: %,d outputs in %.1f s", coins.size(), (System.nanoTime() - t) / 1e9);
    try (ServerProcess server = serve(node, tmp);
        HttpClient http = HttpClient.newHttpClient()) {
      t = System.nanoTime();
      List<Hash32> txids = chain.sendSpends(coins, SEND_THREADS);
      awaitMempool(http, server.baseUrl(), txids, Duration.ofSeconds(120));
      r.line(
          "mempool: %,d txs sent and served in %.1f s",
          txids.size(), (System.nanoTime() - t) / 1e9);
      return measure(r, node, chain, server, txids, idleSeconds);
    }
  }

  private boolean measure(
      BenchReport r,
      RegtestNode node,
      PushChain chain,
      ServerProcess server,
      List<Hash32> txids,
      int idleSeconds)
      throws Exception {
    ServerMemory before = ServerMemory.sample(server.pid());
    try (PushClients clients = new PushClients(server.baseUrl(), "/api/v1/ws", txids)) {
      long t = System.nanoTime();
      clients.subscribeAll(Duration.ofSeconds(180));
      double subscribeSeconds = (System.nanoTime() - t) / 1e9;
      TimeUnit.SECONDS.sleep(idleSeconds);
      ServerMemory idle = ServerMemory.sample(server.pid());

      // one block confirms the first `confirm` txs (half of them watched over each protocol)
      List<String> mined = new ArrayList<>();
      for (int i = 0; i < confirm; i++) {
        mined.add(txids.get(i).displayHex());
      }
      long mining = System.nanoTime();
      node.rpc().call("generateblock", chain.address(), mined);
      long minedAt = System.nanoTime();
      long deadline = minedAt + TimeUnit.SECONDS.toNanos(30);
      while (notifiedCount(clients, confirm) < confirm && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(5);
      }
      TimeUnit.SECONDS.sleep(2); // anything more (a duplicate, a wrong subscriber) arrives by now

      return report(
          r,
          server,
          clients,
          txids.size(),
          confirm,
          new Timings(mining, minedAt, subscribeSeconds),
          before,
          idle);
    }
  }

  /**
   * When the mining call started and returned ({@link System#nanoTime()}), how long subscribing
   * took.
   */
  private record Timings(long mining, long minedAt, double subscribeSeconds) {}

  /** The latencies, exactly-once counts and memory of the run, as tables and summary lines. */
  private static boolean report(
      BenchReport r,
      ServerProcess server,
      PushClients clients,
      int subscribers,
      int confirm,
      Timings t,
      ServerMemory before,
      ServerMemory idle)
      throws Exception {
    long mining = t.mining();
    long minedAt = t.minedAt();
    double subscribeSeconds = t.subscribeSeconds();
    double perThousand = 1000.0 / subscribers;
    double[] latencyMs = new double[confirm];
    int exactlyOnce = 0;
    for (int i = 0; i < confirm; i++) {
      long at = clients.firstReceipt(i);
      latencyMs[i] = at == 0 ? Double.POSITIVE_INFINITY : (at - mining) / 1e6;
      exactlyOnce += clients.notifications(i) == 1 ? 1 : 0;
    }
    long unexpected = 0;
    for (int i = confirm; i < subscribers; i++) {
      unexpected += clients.notifications(i);
    }
    List<String> errors = clients.errors();
    errors.stream().limit(10).forEach(e -> r.line("error: %s", e));
    double p99 = FollowBench.percentile(latencyMs, 99);
    double fraction = unexpected == 0 ? exactlyOnce / (double) confirm : 0;
    r.table(
        "notify latency, mining call start to the client's receipt (ms)",
        List.of("p50", "p90", "p99", "max", "mining RPC"),
        List.of(
            List.of(
                BenchReport.format(FollowBench.percentile(latencyMs, 50)),
                BenchReport.format(FollowBench.percentile(latencyMs, 90)),
                BenchReport.format(p99),
                BenchReport.format(FollowBench.percentile(latencyMs, 100)),
                BenchReport.format((minedAt - mining) / 1e6))));
    r.table(
        "server memory (after a full GC)",
        List.of("sample", "RSS MiB", "heap used MiB"),
        List.of(before.row("before subscribing"), idle.row("subscribers idle")));
    r.line(
        "subscribed %,d in %.1f s; load average %s",
        subscribers, subscribeSeconds, BenchReport.loadAverage());
    r.summary("push_subscribers", subscribers);
    r.summary("push_confirmed_txs", confirm);
    r.summary("push_notify_p50_ms", FollowBench.percentile(latencyMs, 50));
    r.summary("push_notify_p99_ms", p99);
    r.summary("push_notify_max_ms", FollowBench.percentile(latencyMs, 100));
    r.summary("push_mining_rpc_ms", (minedAt - mining) / 1e6);
    r.summary("push_notified_fraction", fraction);
    r.summary("push_unexpected_notifications", unexpected + (confirm - exactlyOnce));
    r.summary("push_client_errors", errors.size());
    r.summary(
        "push_rss_per_1000_idle_subscribers_mib",
        (idle.rssBytes() - before.rssBytes()) / 1048576.0 * perThousand);
    r.summary(
        "push_heap_per_1000_idle_subscribers_mib",
        (idle.heapBytes() - before.heapBytes()) / 1048576.0 * perThousand);
    r.summary("push_p99_vs_target", p99 / TARGET_P99_MS);
    r.summary("push_server_share_p99_ms_at_most", serverP99Ms(server.baseUrl()));
    boolean ok = fraction == 1.0 && errors.isEmpty() && p99 <= TARGET_P99_MS;
    r.summary("passed", ok ? "yes" : "no");
    return ok;
  }

  /**
   * The server's own share of the latency: the upper bound of the histogram bucket of {@code
   * bbf_push_notify_latency_seconds} (the follower applying a change to its event written) that
   * holds the 99th percentile. Only the block's notifications are live events in this run.
   */
  private static double serverP99Ms(String baseUrl) throws IOException, InterruptedException {
    String metrics;
    try (HttpClient http = HttpClient.newHttpClient()) {
      metrics =
          http.send(
                  HttpRequest.newBuilder(URI.create(baseUrl + "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
    }
    String prefix = "bbf_push_notify_latency_seconds_bucket{le=\"";
    List<double[]> buckets = new ArrayList<>();
    for (String line : metrics.lines().filter(l -> l.startsWith(prefix)).toList()) {
      String le = line.substring(prefix.length(), line.indexOf('"', prefix.length()));
      double count = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      buckets.add(
          new double[] {
            le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le), count
          });
    }
    if (buckets.isEmpty()) {
      return Double.NaN;
    }
    double total = buckets.getLast()[1];
    for (double[] b : buckets) {
      if (b[1] >= 0.99 * total) {
        return b[0] * 1000;
      }
    }
    return Double.NaN;
  }

  private static int notifiedCount(PushClients clients, int confirm) {
    int n = 0;
    for (int i = 0; i < confirm; i++) {
      n += clients.notifications(i) > 0 ? 1 : 0;
    }
    return n;
  }

  /** {@code serve --follow} of the node in its own JVM, ready at the node's tip. */
  private ServerProcess serve(RegtestNode node, Path tmp) throws IOException, InterruptedException {
    return ServerProcess.serveFollowing(
        node,
        tmp,
        ServerMemory.SERVER_JVM,
        "--max-connections",
        Integer.toString(subscribers + 1_000));
  }

  /** Waits until the server's mempool ({@code /api/mempool/txids}) holds every one of txids. */
  private static void awaitMempool(
      HttpClient http, String baseUrl, List<Hash32> txids, Duration timeout)
      throws IOException, InterruptedException {
    Set<String> want = new HashSet<>();
    txids.forEach(t -> want.add(t.displayHex()));
    HttpRequest get = HttpRequest.newBuilder(URI.create(baseUrl + "/api/mempool/txids")).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String body = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
      Set<String> served = new HashSet<>();
      JSON.readTree(body).forEach(t -> served.add(t.asText()));
      if (served.containsAll(want)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "the server's mempool holds "
                + want.stream().filter(served::contains).count()
                + " of "
                + want.size()
                + " txs after "
                + timeout);
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }
}
