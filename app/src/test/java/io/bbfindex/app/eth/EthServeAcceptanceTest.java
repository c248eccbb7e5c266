package io.bbfindex.app.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.RoutesDocumented;
import io.bbfindex.eth.EthConfig;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.testing.AnvilNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance against a real anvil: 20,000 transactions over a few hundred blocks
 * (ranges of 2^4 blocks, so many ranges), every hash answered over HTTP with its exact block and
 * index, 20,000 absent hashes answered 404 without a single {@code eth_getTransactionByHash}; and a
 * {@code serve} process killed (SIGKILL) during ingest and during following answers correctly after
 * a restart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EthServeAcceptanceTest {
  private static final int RANGE_BITS = 4;
  private static final int DEPTH = 8;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)");

  @TempDir Path dir;
  private AnvilNode node;
  private final List<String> hashes = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void fill() throws Exception {
    node = AnvilNode.start("--no-mining");
    for (int block = 0; block < 280; block++) {
      hashes.addAll(node.sendTransfers(block < 120 ? 72 : 71));
      node.mine(1);
    }
    assertTrue(hashes.size() >= 20_000, hashes.size() + " transactions");
    node.mine(200); // empty blocks: more ranges, so an ingest lasts long enough to be killed
  }

  @AfterAll
  void stop() {
    http.close();
    if (node != null) {
      node.close();
    }
  }

  @Test
  @Order(1)
  void everyHashExactAndAbsentHashesCostNoRpcCall() throws Exception {
    try (Service service = serveEthereumOnly()) {
      String base = service.server().baseUrl();
      awaitCaughtUp(base, node.blockNumber());
      JsonNode status = get(base + "/v1/eth/status").body;
      assertTrue(status.get("ranges").asInt() >= 28, status.toString());
      assertExact(base, hashes);

      double before = rpcCalls(base, "eth_getTransactionByHash");
      SplittableRandom random = new SplittableRandom(2026);
      List<String> absent = new ArrayList<>();
      for (int i = 0; i < 20_000; i++) {
        byte[] h = new byte[32];
        random.nextBytes(h);
        absent.add("0x" + HexFormat.of().formatHex(h));
      }
      for (int from = 0; from < absent.size(); from += 5_000) {
        JsonNode answers = post(base + "/v1/eth/tx/lookup", absent.subList(from, from + 5_000));
        for (int i = 0; i < 5_000; i++) {
          assertFalse(answers.get(i).get("present").asBoolean(), absent.get(from + i));
          assertEquals(absent.get(from + i), answers.get(i).get("hash").asText());
        }
      }
      for (String h : absent.subList(0, 300)) {
        Reply r = get(base + "/v1/eth/tx/" + h);
        assertEquals(404, r.status, h);
        assertEquals("{\"hash\":\"" + h + "\",\"present\":false}", r.text);
      }
      assertEquals(0, before, "lookups asked the node");
      assertEquals(
          before, rpcCalls(base, "eth_getTransactionByHash"), "absent hashes asked the node");
      assertTrue(metric(base, "bbf_eth_lookups_total{outcome=\"absent\"}") >= 20_300);

      Reply noPrefix = get(base + "/v1/eth/tx/" + hashes.getFirst().substring(2));
      assertEquals(400, noPrefix.status);
      assertTrue(noPrefix.text.contains("starts with 0x"), noPrefix.text);
      Reply shortHash = get(base + "/v1/eth/tx/0x1234");
      assertEquals(400, shortHash.status);
      assertTrue(shortHash.text.contains("64 hex digits"), shortHash.text);
      assertEquals(400, postRaw(base + "/v1/eth/tx/lookup", "{\"hash\":1}").statusCode());
      HttpResponse<String> badElement =
          postRaw(base + "/v1/eth/tx/lookup", "[\"" + hashes.getFirst() + "\",\"0x12\"]");
      assertEquals(400, badElement.statusCode());
      assertTrue(badElement.body().contains("hashes[1]"), badElement.body());
      assertEquals(
          413,
          postRaw(
                  base + "/v1/eth/tx/lookup",
                  JSON.writeValueAsString(absent.subList(0, 10_000))
                      .replace("]", ",\"" + hashes.getFirst() + "\"]"))
              .statusCode());
      assertEquals(405, get(base + "/v1/eth/tx/lookup").status);
    }
  }

  /**
   * A server with an Ethereum source and no Bitcoin data registers no Bitcoin route: {@code
   * /v1/tx/...} is the table's 404, and the document lists exactly what it serves.
   */
  @Test
  @Order(4)
  void anEthereumOnlyServerServesNoBitcoinRoute() throws Exception {
    try (Service service = serveEthereumOnly()) {
      String base = service.server().baseUrl();
      awaitCaughtUp(base, node.blockNumber());
      assertEquals(200, get(base + "/v1/eth/tx/" + hashes.getFirst()).status);
      for (String path :
          List.of(
              "/v1/tx/" + "ab".repeat(32),
              "/v1/tx/" + "ab".repeat(32) + "/hex",
              "/v1/block/" + "ab".repeat(32),
              "/v1/status",
              "/v1/filters",
              "/api/blocks/tip/height")) {
        Reply r = get(base + path);
        assertEquals(404, r.status, path);
        assertEquals("not_found", r.body.get("error").asText(), path);
      }
      assertEquals(404, postRaw(base + "/v1/tx/lookup", "[]").statusCode());
      Reply ready = get(base + "/readyz");
      assertEquals(200, ready.status);
      assertFalse(ready.body.has("tipHeight"), "no Bitcoin tip: " + ready.text);
      ApiClient api = new ApiClient(base);
      RoutesDocumented.assertSame(service, api);
      assertTrue(
          RoutesDocumented.documented(api).stream().noneMatch(op -> op.contains("/v1/tx/")),
          RoutesDocumented.documented(api).toString());
      assertTrue(RoutesDocumented.served(service).contains("GET /v1/eth/tx/{hash}"));
    }
  }

  @Test
  @Order(2)
  void serveKilledDuringIngestAndDuringFollowingAnswersCorrectlyAfterRestart() throws Exception {
    Path store = dir.resolve("killed");
    Child first = Child.serve(node.url(), store);
    try {
      // Killed as soon as the first range files are on disk: the ingest is under way.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (rangeFiles(store) < 2 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertTrue(rangeFiles(store) >= 2, "no range written");
    } finally {
      first.kill();
    }
    long head = node.blockNumber();
    assertTrue(
        rangeFiles(store) < (head - DEPTH + 1) >> RANGE_BITS,
        "killed after the ingest had finished");

    Child second = Child.serve(node.url(), store);
    try {
      // Until it has caught up, a hash it does not hold is "catching up", never absent.
      Reply early = get(second.base + "/v1/eth/tx/" + hashes.getLast());
      assertTrue(
          early.status == 200 || (early.status == 503 && early.text.contains("catching_up")),
          early.text);
      awaitCaughtUp(second.base, head);
      assertEquals(200, get(second.base + "/readyz").status);
      assertExact(second.base, hashes);
    } finally {
      second.kill(); // while following
    }
    List<String> more = new ArrayList<>();
    for (int b = 0; b < 20; b++) {
      more.addAll(node.sendTransfers(25));
      node.mine(1);
    }
    Child third = Child.serve(node.url(), store);
    try {
      awaitCaughtUp(third.base, node.blockNumber());
      assertExact(third.base, hashes);
      assertExact(third.base, more);
      assertEquals(0, rpcCalls(third.base, "eth_getTransactionByHash"));
    } finally {
      third.kill();
    }
  }

  @Test
  @Order(3)
  void pendingThenConfirmedWithinOneSecondOverHttp() throws Exception {
    EthConfig config =
        EthConfig.of(node.url(), dir.resolve("pending"))
            .withRangeBits(RANGE_BITS)
            .withFinalityDepth(DEPTH)
            .withPoll(Duration.ofMillis(100));
    try (Service service =
        Service.start(
            null, // Ethereum only
            EthIndex.open(config),
            new InetSocketAddress("127.0.0.1", 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      String base = service.server().baseUrl();
      awaitCaughtUp(base, node.blockNumber());
      String hash = node.sendTransfers(1).getFirst();
      assertEquals("pending", awaitStatus(base, hash, "pending").get("status").asText());
      node.mine(1);
      long mined = System.nanoTime();
      JsonNode confirmed = awaitStatus(base, hash, "confirmed");
      long ms = (System.nanoTime() - mined) / 1_000_000;
      assertEquals(
          "confirmed", confirmed.get("status").asText(), "after " + ms + " ms: " + confirmed);
      assertTrue(ms <= 1_000, ms + " ms");
      assertEquals(node.blockNumber(), confirmed.get("blockNumber").asLong());
      assertEquals(1, confirmed.get("confirmations").asLong());
    }
  }

  /**
   * Polls {@code GET /v1/eth/tx/{hash}} for up to 1 s until it reports {@code status}; the last
   * answer.
   */
  private JsonNode awaitStatus(String base, String hash, String status) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    JsonNode a;
    do {
      a = get(base + "/v1/eth/tx/" + hash).body;
      if (a.has("status") && a.get("status").asText().equals(status)) {
        return a;
      }
      Thread.sleep(10);
    } while (System.nanoTime() < deadline);
    return a;
  }

  private static long rangeFiles(Path store) throws IOException {
    if (!Files.isDirectory(store)) {
      return 0;
    }
    try (Stream<Path> s = Files.list(store)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".txr")).count();
    }
  }

  /** Every hash answered as the node's receipt places it. */
  private void assertExact(String base, List<String> expected) throws Exception {
    for (int from = 0; from < expected.size(); from += 5_000) {
      List<String> chunk = expected.subList(from, Math.min(expected.size(), from + 5_000));
      List<Object[]> params = new ArrayList<>();
      chunk.forEach(h -> params.add(new Object[] {h}));
      List<tools.jackson.databind.JsonNode> receipts = new ArrayList<>();
      for (int i = 0; i < params.size(); i += 1_000) {
        receipts.addAll(
            node.batch(
                "eth_getTransactionReceipt",
                params.subList(i, Math.min(params.size(), i + 1_000))));
      }
      JsonNode answers = post(base + "/v1/eth/tx/lookup", chunk);
      for (int i = 0; i < chunk.size(); i++) {
        JsonNode a = answers.get(i);
        tools.jackson.databind.JsonNode r = receipts.get(i);
        String what = chunk.get(i) + " -> " + a;
        assertEquals(chunk.get(i), a.get("hash").asText(), what);
        assertTrue(a.get("present").asBoolean(), what);
        assertEquals("confirmed", a.get("status").asText(), what);
        assertEquals(
            Long.decode(r.get("blockNumber").asString()), a.get("blockNumber").asLong(), what);
        assertEquals(r.get("blockHash").asString(), a.get("blockHash").asText(), what);
        assertEquals(
            Long.decode(r.get("transactionIndex").asString()),
            a.get("transactionIndex").asLong(),
            what);
        assertTrue(a.get("confirmations").asLong() >= 1, what);
      }
    }
    Reply one = get(base + "/v1/eth/tx/" + expected.getLast());
    assertEquals(200, one.status, one.text);
  }

  private void awaitCaughtUp(String base, long head) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    JsonNode s = null;
    while (System.nanoTime() < deadline) {
      s = get(base + "/v1/eth/status").body;
      if (s.get("caughtUp").asBoolean() && s.get("servedTip").asLong() >= head) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not caught up with block " + head + ": " + s);
  }

  private double rpcCalls(String base, String method) throws Exception {
    return metric(base, "bbf_eth_rpc_calls_total{method=\"" + method + "\"}");
  }

  private double metric(String base, String series) throws Exception {
    for (String line : get(base + "/metrics").text.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    throw new AssertionError("no series " + series);
  }

  /** A server over the node with no Bitcoin data (the store of test 1, reopened by test 4). */
  private Service serveEthereumOnly() throws IOException {
    EthConfig config =
        EthConfig.of(node.url(), dir.resolve("eth"))
            .withRangeBits(RANGE_BITS)
            .withFinalityDepth(DEPTH)
            .withPoll(Duration.ofMillis(100));
    return Service.start(
        null, // Ethereum only
        EthIndex.open(config),
        new InetSocketAddress("127.0.0.1", 0),
        HttpInitializer.DEFAULT_MAX_BODY_BYTES);
  }

  private record Reply(int status, String text, JsonNode body) {}

  private Reply get(String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body =
        r.headers().firstValue("content-type").orElse("").contains("json")
            ? JSON.readTree(r.body())
            : null;
    return new Reply(r.statusCode(), r.body(), body);
  }

  private HttpResponse<String> postRaw(String url, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode post(String url, List<String> body) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  /**
   * {@code bbf-index serve --eth-rpc} in its own JVM (this JVM's class path and flags), killed with
   * SIGKILL.
   */
  private static final class Child {
    final Process process;
    final String base;

    private Child(Process process, String base) {
      this.process = process;
      this.base = base;
    }

    static Child serve(String rpc, Path store) throws Exception {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
        if (f.startsWith("--add-modules") || f.startsWith("--enable-native-access")) {
          cmd.add(f);
        }
      }
      cmd.addAll(
          List.of(
              "-cp",
              System.getProperty("java.class.path"),
              "io.bbfindex.app.Main",
              "serve",
              "--eth-rpc",
              rpc,
              "--filters",
              store.toString(),
              "--port",
              "0",
              "--range-bits",
              Integer.toString(RANGE_BITS),
              "--depth",
              Integer.toString(DEPTH),
              "--poll-ms",
              "100"));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      CompletableFuture<String> base = new CompletableFuture<>();
      StringBuilder output = new StringBuilder();
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line; (line = r.readLine()) != null; ) {
                    synchronized (output) {
                      output.append(line).append('\n');
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                      base.complete(m.group(1));
                    }
                  }
                } catch (IOException ignored) {
                  // killed
                }
                base.completeExceptionally(new IOException("serve exited: " + output));
              });
      try {
        return new Child(p, base.get(60, TimeUnit.SECONDS));
      } catch (Exception e) {
        p.destroyForcibly();
        throw e;
      }
    }

    void kill() throws InterruptedException {
      process.destroyForcibly(); // SIGKILL: no shutdown hook, no checkpoint
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
