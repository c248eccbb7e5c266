package io.bbfindex.benchmarks.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.synthetic.BigSummaryStore;
import io.bbfindex.benchmarks.synthetic.SyntheticKeys;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.ManifestFile;
import io.bbfindex.ingest.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The big-store batch of bench http at a small size: the grafted summary holds the store's own
 * txids and the synthetic ones, serve's open keeps it (nothing rebuilt), and fresh binary batches
 * through wrk are all answered, with the client's CPU read.
 */
class BigStoreBatchTest {

  @TempDir Path tmp;

  private static final long EXTRA = 200_000;

  @Test
  void theBigSummaryIsServedAsMadeAndHoldsEveryKey() throws Exception {
    List<String> pos = HttpBench.txids(HttpBench.DEMO);
    Path datadir = Fixtures.extract(HttpBench.DEMO, tmp.resolve("data"));
    Path small = tmp.resolve("filters");
    open(datadir, small).close(); // the store as serve builds it
    BigSummaryStore.Made big =
        BigSummaryStore.make(small, tmp.resolve("big"), BigStoreBatch.internal(pos), EXTRA, 0xB16L);
    assertEquals(pos.size() + EXTRA, big.summaryKeys());
    assertTrue(
        big.summaryBytes()
            > Files.size(small.resolve(ManifestFile.read(small).summary().name())) * 100,
        "the summary grew with its keys: " + big.summaryBytes());
    try (FilterStore store = FilterStore.open(big.dir())) {
      for (String t : pos) {
        assertTrue(store.mightContainTx(HashKeys.fromDisplayHex("txid", t), 0), t);
      }
      SyntheticKeys synthetic = new SyntheticKeys(0xB16L);
      byte[] k = new byte[32];
      for (long i = 0; i < EXTRA; i += 997) {
        synthetic.key(i, k, 0);
        assertTrue(store.mightContainTx(k, 0), "synthetic key " + i);
      }
    }

    assumeTrue(WrkRun.findWrk().isPresent(), "wrk is not installed");
    List<String> neg = HttpBench.negatives(new HashSet<>(pos));
    Map<String, Path> files = HttpBench.requestFiles(tmp.resolve("req"), pos, neg, new Random(3));
    FreshBatch fresh = FreshBatch.in(tmp);
    try (ChainBackend backend = open(datadir, big.dir());
        Service s =
            Service.start(
                backend,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                HttpInitializer.DEFAULT_MAX_BODY_BYTES);
        ChainBackend smallBackend = open(datadir, small);
        Service smallService =
            Service.start(
                smallBackend,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      assertEquals(
          big.summaryKeys(),
          ManifestFile.read(big.dir()).summary().keys(),
          "serve's open rebuilt nothing: the big summary stands");
      String url = s.server().baseUrl();
      assertEquals(200, status(url + "/v1/tx/" + pos.get(pos.size() / 2)), "a demo txid");
      FreshBatch.Run run =
          fresh.run(
              WrkRun.findWrk().orElseThrow(),
              url,
              files.get(HttpBench.NEG_BATCH_FRESH),
              "/v1/tx/lookup",
              1,
              2,
              1);
      assertTrue(run.wrk().requests() > 0);
      assertEquals(0, run.wrk().non2xx() + run.wrk().socketErrors(), "fresh batches are 200");
      assertTrue(run.clientCpuSeconds() > 0, "wrk's CPU read: " + run.clientCpuSeconds());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      fresh.printClientCost(
          new BenchReport("t", new PrintStream(out, true, StandardCharsets.UTF_8)), "big", url);
      String printed = out.toString(StandardCharsets.UTF_8);
      assertTrue(printed.contains("µs CPU a request"), printed);
      pairedRoundsAlternate(
          new HttpBench.Wrk(WrkRun.findWrk().orElseThrow(), WrkRun.writeScript(tmp), fresh),
          smallService.server().baseUrl(),
          url,
          files);
    }
  }

  /**
   * Both stores served at once: 3 rounds of both batches on each, the order alternating, every
   * round printed with its ratios, the headline their median; each run's client CPU and the
   * server's own batches of that run (and no other's) read.
   */
  private static void pairedRoundsAlternate(
      HttpBench.Wrk tool, String smallUrl, String bigUrl, Map<String, Path> files)
      throws Exception {
    HttpBench.Config c =
        new HttpBench.Config(1, 1, 1, 1, 2, false, true, List.of("fixture"), EXTRA, 3, 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BenchReport r = new BenchReport("t", new PrintStream(out, true, StandardCharsets.UTF_8));
    List<StorePairRounds.Side> sides =
        List.of(
            new StorePairRounds.Side("small", smallUrl), new StorePairRounds.Side("big", bigUrl));
    StorePairRounds.Result res = StorePairRounds.run(c, r, tool, sides.get(0), sides.get(1), files);
    StorePairRounds.printCosts(r, res, sides);
    String printed = out.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("pair round 1 (small first)"), printed);
    assertTrue(printed.contains("pair round 2 (big first)"), printed);
    assertTrue(printed.contains("pair round 3 (small first)"), printed);
    for (String t : StorePairRounds.TARGETS) {
      List<Double> ratios = res.ratios().get(t);
      assertEquals(3, ratios.size(), t);
      double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      assertEquals(sorted[1], res.medianRatio(t), 1e-12, "the median of the rounds' ratios");
      for (String side : List.of("small", "big")) {
        List<StorePairRounds.Cell> cells = res.cells(side, t);
        assertEquals(3, cells.size());
        for (StorePairRounds.Cell cell : cells) {
          assertEquals(0, cell.wrk().non2xx() + cell.wrk().socketErrors(), side + " " + t);
          assertTrue(cell.clientCpuSeconds() > 0, "wrk's CPU read");
          assertTrue(
              Math.abs(cell.server().batches() - cell.wrk().requests()) <= 2L * c.connections(),
              "the server's batches of this run only: "
                  + cell.server().batches()
                  + " vs "
                  + cell.wrk().requests());
          assertTrue(cell.server().micros(1) > 0, "the filter probes took time");
        }
      }
    }
    assertTrue(printed.contains("wrk µs CPU"), printed);
  }

  @Test
  void wrksCpuIsReadFromTimes() throws IOException {
    assertEquals(
        61.5 + 0.25, FreshBatch.childCpuSeconds("report\n0m0.001s 0m0.002s\n1m1.500s 0m0.250s\n"));
    assertEquals("100m", BigStoreBatch.suffix(100_000_000L));
    assertEquals("200k", BigStoreBatch.suffix(200_000L));
  }

  private static ChainBackend open(Path datadir, Path filters) throws IOException {
    return new CoreChainAccess()
        .open(
            ServeRequest.of(datadir, filters, datadir.resolveSibling("work"), 0.01),
            new PrintStream(OutputStream.nullOutputStream()));
  }

  private static int status(String url) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
    try {
      return c.getResponseCode();
    } finally {
      c.disconnect();
    }
  }
}
