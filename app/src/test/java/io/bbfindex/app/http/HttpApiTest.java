package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.bbfindex.app.bitcoin.TxBatchRoute;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.app.testing.InMemoryChainBackend;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP API against a real server on 127.0.0.1 (port 0) over the real mainnet 0-599 fixture
 * (chain-ingest's NodeIndex, real blocked Bloom filters): every route, every error case,
 * keep-alive, and the zero-LevelDB-reads promise for negatives, checked through {@code /metrics} as
 * a dashboard would. {@code EndToEndTest} checks every answer of every fixture.
 */
class HttpApiTest {
  private static final long SEED = 20_260_521L;
  private static final String PAYMENT_170 =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

  @TempDir static Path tmp;
  static GroundTruth truth;
  static List<String> negatives;
  static List<String> falsePositives;
  static Service service;
  static ApiClient api;

  @BeforeAll
  static void start() throws IOException {
    FixtureServer server = FixtureServer.start(tmp);
    truth = server.truth();
    ChainBackend backend = server.backend();
    // Real later txids that the real filter rejects: the negatives that must stay off LevelDB.
    negatives =
        Fixtures.realTxidsAbsentFrom(server.known(), 400).stream()
            .filter(id -> !backend.txMaybe(key(id), 0))
            .limit(300)
            .toList();
    // Random keys the real filter says "maybe" to (about 1 in 100 at the 1% target): false
    // positives.
    Random random = new Random(SEED);
    falsePositives = new ArrayList<>();
    while (falsePositives.size() < 3) {
      byte[] candidate = new byte[32];
      random.nextBytes(candidate);
      if (backend.txMaybe(candidate, 0)) {
        falsePositives.add(HashKeys.toDisplayHex(candidate));
      }
    }
    service = server.service();
    api = server.api();
  }

  private static byte[] key(String displayHex) {
    return HashKeys.fromDisplayHex("txid", displayHex);
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
  }

  @Test
  void theBlock170PaymentIsConfirmedAtHeight170AndCaseDoesNotMatter() {
    JsonNode lower = api.get("/v1/tx/" + PAYMENT_170).json();
    Answer upper = api.get("/v1/tx/" + PAYMENT_170.toUpperCase(java.util.Locale.ROOT));
    assertEquals(200, upper.status());
    assertEquals(lower, upper.json(), "the answer echoes the normalised lower-case txid");
    assertEquals(170, lower.get("height").asInt());
    assertEquals(
        "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee",
        lower.get("blockHash").asText());
  }

  @Test
  void aNegativeLookupIs404AndReadsNothingFromLevelDb() {
    double readsBefore = api.metric("bbf_leveldb_reads_total");
    double absentBefore =
        api.metric("bbf_lookups_total", Map.of("kind", "tx", "outcome", "absent_by_filter"));
    for (String txid : negatives.subList(0, 50)) {
      Answer a = api.get("/v1/tx/" + txid);
      assertEquals(404, a.status(), txid);
      assertEquals(
          ApiClient.JSON.createObjectNode().put("txid", txid).put("present", false), a.json());
    }
    assertEquals(
        readsBefore, api.metric("bbf_leveldb_reads_total"), "negatives must not touch LevelDB");
    assertEquals(
        absentBefore + 50,
        api.metric("bbf_lookups_total", Map.of("kind", "tx", "outcome", "absent_by_filter")));
  }

  @Test
  void aFilterFalsePositiveCostsOneReadAndIsCounted() {
    double readsBefore = api.metric("bbf_leveldb_reads_total");
    double fpBefore =
        api.metric("bbf_lookups_total", Map.of("kind", "tx", "outcome", "filter_false_positive"));
    Answer a = api.get("/v1/tx/" + falsePositives.getFirst());
    assertEquals(404, a.status());
    assertFalse(a.json().get("present").asBoolean());
    assertEquals(readsBefore + 1, api.metric("bbf_leveldb_reads_total"));
    assertEquals(
        fpBefore + 1,
        api.metric("bbf_lookups_total", Map.of("kind", "tx", "outcome", "filter_false_positive")));
    double observed = api.metric("bbf_filter_observed_fpr", Map.of("kind", "tx"));
    assertTrue(observed > 0 && observed < 1, "observed FPR " + observed);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e1", // 63 chars
        "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e166", // 65 chars
        "g4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16", // not hex
        "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e1%20", // encoded space
        "",
        "abc/def",
        "lookup2"
      })
  void aMalformedTxidIs400WithAReason(String id) {
    Answer a = api.get("/v1/tx/" + id);
    assertEquals(400, a.status(), id);
    JsonNode j = a.json();
    assertEquals("malformed_txid", j.get("error").asText());
    assertTrue(j.get("detail").asText().startsWith("txid must be 64 hex characters"), j.toString());
    assertNoStackTrace(a);
  }

  @Test
  void aBatchGivesTheSameAnswersAsSingleLookupsInOrder() {
    List<String> ids = new ArrayList<>();
    truth.txs().forEach(t -> ids.add(t.txidHex()));
    ids.addAll(negatives);
    ids.addAll(falsePositives);
    Collections.shuffle(ids, new Random(SEED));
    Answer batch = api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(ids).toString());
    assertEquals(200, batch.status());
    ArrayNode answers = (ArrayNode) batch.json();
    assertEquals(ids.size(), answers.size());
    for (int i = 0; i < ids.size(); i++) {
      Answer single = api.get("/v1/tx/" + ids.get(i));
      assertEquals(single.json(), answers.get(i), "index " + i + " (seed " + SEED + ")");
    }
  }

  @Test
  void aBatchOfTenThousandIsServedAndOneMoreIs413() {
    List<String> ids = new ArrayList<>(Collections.nCopies(10_000, PAYMENT_170));
    Answer full = api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(ids).toString());
    assertEquals(200, full.status());
    assertEquals(10_000, full.json().size());
    ids.add(PAYMENT_170);
    Answer over = api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(ids).toString());
    assertEquals(413, over.status());
    assertEquals("too_many_txids", over.json().get("error").asText());
  }

  @Test
  void aMalformedIdMakesTheWholeBatch400NamingItsIndex() {
    Answer a =
        api.post(
            "/v1/tx/lookup",
            "[\""
                + PAYMENT_170
                + "\", \""
                + negatives.getFirst()
                + "\", \""
                + PAYMENT_170
                + "\", \"xyz\", \""
                + PAYMENT_170
                + "\"]");
    assertEquals(400, a.status());
    assertEquals("malformed_txid", a.json().get("error").asText());
    assertTrue(a.json().get("detail").asText().contains("txids[3]"), a.body());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "{}",
        "\"abc\"",
        "[1]",
        "[null]",
        "[[]]",
        "[",
        "[\"a\",",
        "[] []",
        "not json",
        "\u00e9"
      })
  void aBodyThatIsNotAJsonArrayOfStringsIs400(String body) {
    Answer a = api.post("/v1/tx/lookup", body);
    assertEquals(400, a.status(), body);
    assertNotNull(a.json().get("detail"));
    assertNoStackTrace(a);
  }

  @Test
  void anEmptyBatchIsAnEmptyArray() {
    Answer a = api.post("/v1/tx/lookup", "[]");
    assertEquals(200, a.status());
    assertEquals("[]", a.body());
  }

  @Test
  void aBodyOverTheLimitIs413Json() {
    String big = "[\"" + "a".repeat(HttpInitializer.DEFAULT_MAX_BODY_BYTES) + "\"]";
    Answer a = api.post("/v1/tx/lookup", big);
    assertEquals(413, a.status());
    assertEquals("payload_too_large", a.json().get("error").asText());
    assertEquals(200, api.get("/livez").status(), "the server keeps serving");
  }

  @Test
  void everyBlockIsAnsweredWithItsHeaderFields() {
    for (GroundTruth.Block b : truth.blocks().values()) {
      Answer a = api.get("/v1/block/" + b.hashHex());
      assertEquals(200, a.status(), b.hashHex());
      JsonNode j = a.json();
      assertEquals(b.height(), j.get("height").asInt());
      assertEquals(b.nTx(), j.get("nTx").asInt());
      assertEquals(b.dataPos(), j.get("dataPos").asLong());
      assertEquals(b.file(), j.get("file").asInt());
      assertTrue(j.get("onActiveChain").asBoolean());
      assertEquals("confirmed", j.get("status").asText());
      assertEquals(b.hashHex(), HashKeys.toDisplayHex(GroundTruth.sha256d(b.header())));
      if (b.height() > 0) {
        assertEquals(truth.blockAt(b.height() - 1).hashHex(), j.get("prevHash").asText());
      }
    }
    JsonNode genesis = api.get("/v1/block/" + truth.blockAt(0).hashHex()).json();
    assertEquals(
        "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
        genesis.get("hash").asText());
    assertEquals(
        "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
        genesis.get("merkleRoot").asText());
    assertEquals(1231006505L, genesis.get("time").asLong());
    assertEquals("1d00ffff", genesis.get("bits").asText());
    assertEquals(2083236893L, genesis.get("nonce").asLong());
    assertEquals(1, genesis.get("version").asInt());
  }

  @Test
  void anUnknownBlockIs404AndAMalformedOneIs400() {
    Answer unknown = api.get("/v1/block/" + negatives.getFirst());
    assertEquals(404, unknown.status());
    assertFalse(unknown.json().get("present").asBoolean());
    Answer bad = api.get("/v1/block/00000000d1145790");
    assertEquals(400, bad.status());
    assertEquals("malformed_hash", bad.json().get("error").asText());
  }

  @Test
  void filtersLivezReadyzAndMetricsAnswer() {
    JsonNode filters = api.get("/v1/filters").json();
    assertEquals(599, filters.get("tipHeight").asInt());
    JsonNode first = filters.get("filters").get(0);
    for (String field :
        List.of(
            "name",
            "kind",
            "blockFile",
            "keys",
            "bits",
            "k",
            "wordBits",
            "fillRatio",
            "modelledFpr")) {
      assertNotNull(first.get(field), field);
    }
    assertEquals(200, api.get("/livez").status());
    Answer ready = api.get("/readyz");
    assertEquals(200, ready.status());
    assertTrue(ready.json().get("ready").asBoolean());
    Answer metrics = api.get("/metrics");
    assertEquals(200, metrics.status());
    assertTrue(metrics.header("content-type").startsWith("text/plain"));
    assertEquals(599, api.metric("bbf_index_tip_height"));
    assertEquals(0, api.metric("bbf_index_txindex_lag_blocks"), "the fixture's txindex is synced");
    assertTrue(api.metric("bbf_filter_modelled_fpr", Map.of("filter", "tx-summary.bbf")) < 0.01);
    assertEquals(1, api.metric("bbf_build_info"));
    assertTrue(
        api.metric("netty_eventexecutor_tasks_pending") >= 0, "event-loop metrics are bound");
    assertTrue(api.metric("bbf_http_request_seconds_count", Map.of("route", "livez")) >= 1);
  }

  @Test
  void unknownPathsAre404AndWrongMethods405WithAllow() {
    Answer missing = api.get("/v2/nothing");
    assertEquals(404, missing.status());
    assertEquals("not_found", missing.json().get("error").asText());
    Answer postTx = api.post("/v1/tx/" + PAYMENT_170, "[]");
    assertEquals(405, postTx.status());
    assertEquals("GET, HEAD", postTx.header("allow"));
    assertEquals("method_not_allowed", postTx.json().get("error").asText());
    Answer getBatch = api.get("/v1/tx/lookup");
    assertEquals(405, getBatch.status());
    assertEquals("POST", getBatch.header("allow"));
    assertEquals(405, api.method("DELETE", "/livez").status());
    assertEquals(
        200, api.get("/livez?probe=1").status(), "a query string does not change the route");
  }

  @Test
  void keepAliveServesSeveralRequestsOnOneConnectionAndHttp10Closes() throws IOException {
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      String req = "GET /v1/tx/" + PAYMENT_170 + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
      out.write(
          (req + req + "GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      for (int i = 0; i < 3; i++) {
        String response = readResponse(in);
        assertTrue(response.startsWith("HTTP/1.1 200 OK"), response);
      }
    }
    try (Socket s = connect()) {
      s.getOutputStream().write("GET /livez HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertTrue(all.startsWith("HTTP/1.0 200 OK"), all);
      assertTrue(all.toLowerCase(java.util.Locale.ROOT).contains("connection: close"), all);
    }
  }

  @Test
  void expectContinueIsAnsweredBeforeTheBodyAndRefusedWith413WhenTooLarge() throws IOException {
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST /v1/tx/lookup HTTP/1.1\r\n"
                  + "Host: localhost\r\n"
                  + "Expect: 100-continue\r\n"
                  + "Content-Length: "
                  + (2 * HttpInitializer.DEFAULT_MAX_BODY_BYTES)
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String refused = readResponse(s.getInputStream());
      assertTrue(refused.startsWith("HTTP/1.1 413"), refused);
      assertTrue(refused.contains("\"payload_too_large\""), refused);
    }
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      String body = "[\"" + PAYMENT_170 + "\"]";
      out.write(
          ("POST /v1/tx/lookup HTTP/1.1\r\n"
                  + "Host: localhost\r\n"
                  + "Expect: 100-continue\r\n"
                  + "Content-Length: "
                  + body.length()
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      String interim =
          new String(
              in.readNBytes("HTTP/1.1 100 Continue\r\n\r\n".length()), StandardCharsets.US_ASCII);
      assertEquals("HTTP/1.1 100 Continue\r\n\r\n", interim);
      out.write(body.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String answer = readResponse(in);
      assertTrue(answer.startsWith("HTTP/1.1 200") && answer.contains("\"height\":170"), answer);
    }
  }

  @Test
  void garbageOnTheWireIs400AndTheServerKeepsServing() throws IOException {
    try (Socket s = connect()) {
      s.getOutputStream().write("THIS IS NOT HTTP\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertTrue(all.startsWith("HTTP/1.") && all.contains(" 400 "), all);
      assertTrue(all.contains("\"error\""), all);
    }
    try (Socket s = connect()) {
      String longLine = "GET /" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
      s.getOutputStream().write(longLine.getBytes(StandardCharsets.US_ASCII));
      String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertTrue(all.contains(" 414 "), all);
    }
    assertEquals(200, api.get("/v1/tx/" + PAYMENT_170).status());
  }

  /**
   * No fixture holds a stale block (their blk files are one chain), so this case runs over an edge
   * fake built from the fixture's real ground truth, with the chain cut at 590 as after a reorg.
   */
  @Test
  void aStaleTransactionIsReportedAsStale() throws IOException {
    int reorgTip = 590;
    try (Service reorged =
        Service.start(
            new InMemoryChainBackend(truth, Set.of(), reorgTip),
            new InetSocketAddress("127.0.0.1", 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      ApiClient client = new ApiClient(reorged.server().baseUrl());
      GroundTruth.Tx above =
          truth.txs().stream().filter(t -> t.block().height() > reorgTip).findFirst().orElseThrow();
      JsonNode j = client.get("/v1/tx/" + above.txidHex()).json();
      assertEquals("stale", j.get("status").asText());
      assertEquals(0, j.get("confirmations").asInt(), "as getrawtransaction: 0 off the chain");
      assertEquals(1, client.metric("bbf_lookups_total", Map.of("kind", "tx", "outcome", "stale")));
      // the binary batch form says "stale" with its status byte 2
      byte[] status =
          client
              .postBytes(
                  "/v1/tx/lookup",
                  "application/octet-stream",
                  HashKeys.fromDisplayHex("txid", above.txidHex()))
              .body();
      assertEquals(1, status.length);
      assertEquals(TxBatchRoute.STATUS_STALE, status[0]);
      JsonNode block = client.get("/v1/block/" + above.block().hashHex()).json();
      assertFalse(block.get("onActiveChain").asBoolean());
    }
  }

  private static Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(service.server().address(), 5_000);
    s.setSoTimeout(10_000);
    return s;
  }

  /** Reads one response with a Content-Length body off a keep-alive stream. */
  static String readResponse(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed mid-response: " + head);
      }
      head.write(b);
    }
    String headers = head.toString(StandardCharsets.US_ASCII);
    int length =
        Integer.parseInt(
            headers
                .toLowerCase(java.util.Locale.ROOT)
                .split("content-length: ")[1]
                .split("\r\n")[0]
                .trim());
    return headers + new String(in.readNBytes(length), StandardCharsets.US_ASCII);
  }

  private static void assertNoStackTrace(Answer a) {
    assertFalse(a.body().contains("Exception") || a.body().contains("\tat "), a.body());
  }
}
