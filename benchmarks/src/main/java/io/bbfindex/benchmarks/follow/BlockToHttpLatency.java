package io.bbfindex.benchmarks.follow;

import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.benchmarks.soak.FollowedNode;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What a wallet sees: from the start of the mining RPC call ({@code generatetoaddress}) to the
 * first HTTP 200 {@code "status":"confirmed"} from a real {@code serve --follow} (its own JVM, the
 * packaged classes) for a transaction of the new block. The node is a real regtest bitcoind with
 * ZMQ; before each block the client waits a random time in [0, 1 s) so that block arrivals fall
 * anywhere against the follower's poll interval (500 ms by default), not in step with it. The
 * client asks again as soon as an answer comes back (one keep-alive connection); its own round
 * trip, well under a millisecond on 127.0.0.1, is inside the figure, as it is for a wallet.
 *
 * <p>Left out: the time the node takes to build the block is inside the figure (it is part of the
 * RPC call), the network between a wallet and the server is not.
 */
final class BlockToHttpLatency {
  private BlockToHttpLatency() {}

  /** Runs {@code blocks} rounds and adds the p50/p99 summary lines to {@code summary}. */
  static void measure(Path bitcoind, int blocks, long seed, Map<String, String> summary)
      throws IOException, InterruptedException {
    SplittableRandom random = new SplittableRandom(seed);
    double[] ms = new double[blocks];
    try (BenchTempDir tmp = BenchTempDir.create("bbf-bench-follow-http-");
        RegtestNode node = RegtestNode.start(bitcoind, true)) {
      FollowedNode.prepare(node);
      try (ServerProcess serve = FollowedNode.serve(node, tmp.path());
          HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
        for (int i = 0; i < blocks; i++) {
          Hash32 tx = node.send("bech32", 0.001);
          URI uri = URI.create(serve.baseUrl() + "/v1/tx/" + tx.displayHex());
          awaitStatus(http, uri, "\"status\":\"mempool\"", System.nanoTime());
          Thread.sleep(random.nextInt(1_000));
          long t0 = System.nanoTime();
          node.mine(1);
          ms[i] = awaitStatus(http, uri, "\"status\":\"confirmed\"", t0);
        }
      }
    }
    double p50 = FollowBench.percentile(ms, 50);
    double p99 = FollowBench.percentile(ms, 99);
    System.out.printf(
        Locale.ROOT,
        "block to HTTP answer (serve --follow in its own JVM, ZMQ; clock from the start of the"
            + " mining RPC call to the first 200 \"confirmed\" for a tx of the block; %d blocks at"
            + " random offsets in [0, 1 s)): p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
        blocks,
        p50,
        p99,
        FollowBench.percentile(ms, 100));
    summary.put("follow_block_to_http_answer_p50_ms", String.format(Locale.ROOT, "%.3f", p50));
    summary.put("follow_block_to_http_answer_p99_ms", String.format(Locale.ROOT, "%.3f", p99));
  }

  /**
   * Asks {@code uri} until its body holds {@code wanted}; milliseconds since {@code t0}.
   *
   * @throws IOException after 10 s without it
   */
  private static double awaitStatus(HttpClient http, URI uri, String wanted, long t0)
      throws IOException, InterruptedException {
    HttpRequest get = HttpRequest.newBuilder(uri).build();
    long deadline = t0 + Duration.ofSeconds(10).toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200 && r.body().contains(wanted)) {
        return (System.nanoTime() - t0) / 1e6;
      }
      last = r.statusCode() + " " + r.body();
    }
    throw new IOException("no " + wanted + " from " + uri + " within 10 s; last answer: " + last);
  }
}
