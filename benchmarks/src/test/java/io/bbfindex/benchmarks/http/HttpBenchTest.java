package io.bbfindex.benchmarks.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.ingest.testing.Fixtures;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The http benchmark's pieces: wrk's report parsed, the request lists, and (where wrk is installed)
 * the request-list script driving a real server over the demo fixture for a second, with the status
 * codes the lookups must give. No timing asserted.
 */
class HttpBenchTest {

  /** wrk 4.1's report layout with --latency. */
  static final String REPORT =
      """
      Running 5s test @ http://127.0.0.1:35211
        2 threads and 32 connections
        Thread Stats   Avg      Stdev     Max   +/- Stdev
          Latency     1.53ms    4.01ms  63.22ms   95.12%
          Req/Sec    20.45k     3.12k   25.10k    70.00%
        Latency Distribution
           50%  500.00us
           75%  800.00us
           90%    1.20ms
           99%   26.32ms
        207459 requests in 5.10s, 40.12MB read
        Socket errors: connect 0, read 2, write 0, timeout 1
        Non-2xx or 3xx responses: 207459
      Requests/sec:  40697.23
      Transfer/sec:      7.87MB
      """;

  @TempDir Path tmp;

  @Test
  void parsesWrksReport() throws IOException {
    WrkRun r = WrkRun.parse(REPORT);
    assertEquals(207_459, r.requests());
    assertEquals(5.10, r.seconds(), 1e-9);
    assertEquals(40_697.23, r.requestsPerSecond(), 1e-9);
    assertEquals(0.5, r.p50Millis(), 1e-9);
    assertEquals(26.32, r.p99Millis(), 1e-9);
    assertEquals(207_459, r.non2xx());
    assertEquals(3, r.socketErrors());
    assertThrows(
        IOException.class,
        () -> WrkRun.parse(REPORT.replace("     99%   26.32ms\n", "")),
        "a report without --latency figures is refused");
  }

  @Test
  void requestListsHoldWhatTheTargetsNeed() throws IOException {
    List<String> pos = HttpBench.txids(HttpBench.DEMO);
    assertEquals(615, pos.size());
    List<String> neg = HttpBench.negatives(new HashSet<>(pos));
    assertTrue(neg.size() > 80_000 && neg.stream().noneMatch(pos::contains));
    Map<String, Path> files = HttpBench.requestFiles(tmp, pos, neg, new Random(1));
    assertEquals(List.of("/livez"), Files.readAllLines(files.get("livez")));
    assertTrue(
        Files.readAllLines(files.get("negative")).stream()
            .allMatch(l -> l.matches("/v1/tx/[0-9a-f]{64}")));
    List<String> bodies = Files.readAllLines(files.get("batch 1000"));
    assertTrue(
        bodies.stream()
            .allMatch(b -> b.startsWith("[\"") && b.split(",").length == HttpBench.BATCH_IDS));
    List<String> binary = Files.readAllLines(files.get(HttpBench.NEG_BATCH_BINARY));
    List<String> json = Files.readAllLines(files.get(HttpBench.NEG_BATCH_JSON));
    assertEquals(json.size(), binary.size());
    for (int b = 0; b < binary.size(); b++) {
      String hex = binary.get(b);
      assertEquals(64 * HttpBench.NEG_BATCH_IDS, hex.length(), "32 bytes an id, in hex");
      // the binary body carries the JSON body's ids in internal byte order (display hex reversed)
      String firstJson = json.get(b).substring(2, 66);
      assertEquals(
          firstJson,
          HexFormat.of().formatHex(reversed(HexFormat.of().parseHex(hex.substring(0, 64)))));
    }
  }

  private static byte[] reversed(byte[] b) {
    byte[] r = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      r[i] = b[b.length - 1 - i];
    }
    return r;
  }

  @Test
  void wrkDrivesARealServerWithTheExpectedAnswers() throws Exception {
    assumeTrue(WrkRun.findWrk().isPresent(), "wrk is not installed");
    Path wrk = WrkRun.findWrk().orElseThrow();
    List<String> pos = HttpBench.txids(HttpBench.DEMO);
    List<String> neg = HttpBench.negatives(new HashSet<>(pos));
    Map<String, Path> files = HttpBench.requestFiles(tmp.resolve("req"), pos, neg, new Random(2));
    Path script = WrkRun.writeScript(tmp);
    Path datadir = Fixtures.extract(HttpBench.DEMO, tmp.resolve("data"));
    ChainBackend backend =
        new CoreChainAccess()
            .open(
                ServeRequest.of(datadir, tmp.resolve("filters"), tmp.resolve("work"), 0.01),
                new PrintStream(OutputStream.nullOutputStream()));
    try (Service s =
        Service.start(
            backend,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      String url = s.server().baseUrl();
      WrkRun negative = WrkRun.run(wrk, script, url, files.get("negative"), null, false, 1, 2, 1);
      assertTrue(negative.requests() > 0);
      assertEquals(negative.requests(), negative.non2xx(), "every negative is a 404");
      assertEquals("all 404", HttpBench.figure("demo", "negative", List.of(negative)).check());
      WrkRun positive = WrkRun.run(wrk, script, url, files.get("positive"), null, false, 1, 2, 1);
      assertEquals(0, positive.non2xx(), "every positive is a 200");
      WrkRun batch =
          WrkRun.run(wrk, script, url, files.get("batch 1000"), "/v1/tx/lookup", false, 1, 2, 1);
      assertTrue(batch.requests() > 0);
      assertEquals(0, batch.non2xx(), "batches of 1,000 ids are 200");
      WrkRun binary =
          WrkRun.run(
              wrk,
              script,
              url,
              files.get(HttpBench.NEG_BATCH_BINARY),
              "/v1/tx/lookup",
              true,
              1,
              2,
              1);
      assertTrue(binary.requests() > 0);
      assertEquals(0, binary.non2xx() + binary.socketErrors(), "binary batches are 200");
      // the server's own split of the batches' time, as bench http reads it
      Map<String, double[]> sums = new java.util.TreeMap<>();
      Map<String, Double> counts = new java.util.TreeMap<>();
      BatchPhaseSplit.parse(
          new String(
              java.net.URI.create(url + "/metrics").toURL().openStream().readAllBytes(),
              java.nio.charset.StandardCharsets.UTF_8),
          sums,
          counts);
      assertTrue(counts.get("binary") >= binary.requests(), "binary batches timed: " + counts);
      assertTrue(counts.get("json") >= batch.requests(), "json batches timed: " + counts);
      assertTrue(sums.get("binary")[1] > 0, "the filter probes took time");
      assertEquals(0, negative.socketErrors() + positive.socketErrors() + batch.socketErrors());
    }
  }

  @Test
  void profileComponentsNameThePartOfTheServer() {
    assertEquals("io.bbfindex.app.http", JfrTop.component("io.bbfindex.app.http.ApiHandler.tx"));
    assertEquals(
        "io.bbfindex.filters",
        JfrTop.component("io.bbfindex.filters.BlockedBloomFilter.mightContain"));
    assertEquals("io.netty", JfrTop.component("io.netty.channel.epoll.Native.epollWait"));
    assertEquals("JDK (java.*)", JfrTop.component("java.lang.String.indexOf"));
    assertEquals("other", JfrTop.component("org.example.Foo.bar"));
  }
}
