package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.bitcoin.TxBatchRoute;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.OpenApiContract;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binary form of {@code POST /v1/tx/lookup} ({@code application/octet-stream}: raw 32-byte
 * txids in internal byte order in, one status byte per txid out) against a real server on 127.0.0.1
 * over the real mainnet 0-599 fixture: every ground-truth txid and real absent ones answered as the
 * ground truth says and as the JSON form says, bad bodies refused with a JSON 400 that says why,
 * the 10,000-id limit, and every answer as the OpenAPI document describes it.
 */
class BinaryBatchTest {
  private static final String OCTET = "application/octet-stream";
  private static final long SEED = 20_261_125L;

  @TempDir static Path tmp;
  static FixtureServer server;
  static GroundTruth truth;
  static List<String> absent;
  static ApiClient api;

  @BeforeAll
  static void start() throws IOException {
    server = FixtureServer.start(tmp);
    truth = server.truth();
    absent = Fixtures.realTxidsAbsentFrom(server.known(), 2_000);
    api = server.api();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      OpenApiContract.of(api).checkAll(api);
      server.close();
    }
  }

  /** The request body: each txid's 32 bytes in internal order (its display hex reversed). */
  private static byte[] body(List<String> displayHex) {
    byte[] b = new byte[32 * displayHex.size()];
    for (int i = 0; i < displayHex.size(); i++) {
      System.arraycopy(HashKeys.fromDisplayHex("txid", displayHex.get(i)), 0, b, 32 * i, 32);
    }
    return b;
  }

  @Test
  void everyGroundTruthTxidIsConfirmedAndRealAbsentOnesAreNotInRequestOrder() {
    List<String> ids = new ArrayList<>();
    truth.txs().forEach(t -> ids.add(t.txidHex()));
    ids.addAll(absent);
    Collections.shuffle(ids, new Random(SEED));
    Set<String> known = server.known();

    HttpResponse<byte[]> a = api.postBytes("/v1/tx/lookup", OCTET, body(ids));

    assertEquals(200, a.statusCode());
    assertEquals(OCTET, a.headers().firstValue("content-type").orElseThrow());
    byte[] status = a.body();
    assertEquals(ids.size(), status.length, "one byte per txid");
    for (int i = 0; i < ids.size(); i++) {
      int expected =
          known.contains(ids.get(i)) ? TxBatchRoute.STATUS_CONFIRMED : TxBatchRoute.STATUS_ABSENT;
      assertEquals(expected, status[i], "txid " + i + " " + ids.get(i) + " (seed " + SEED + ")");
    }
    // the JSON form of the same batch says the same
    JsonNode json = api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(ids).toString()).json();
    for (int i = 0; i < ids.size(); i++) {
      assertEquals(
          json.get(i).get("present").asBoolean(),
          status[i] != TxBatchRoute.STATUS_ABSENT,
          "txid " + i);
    }
  }

  @Test
  void displayOrderBytesAreADifferentTxid() {
    String payment170 = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
    byte[] internal = body(List.of(payment170));
    byte[] display = java.util.HexFormat.of().parseHex(payment170);
    HttpResponse<byte[]> a =
        api.postBytes(
            "/v1/tx/lookup", OCTET, concat(internal, display)); // the same 32 bytes, both orders
    assertArrayEquals(
        new byte[] {TxBatchRoute.STATUS_CONFIRMED, TxBatchRoute.STATUS_ABSENT}, a.body());
  }

  @Test
  void aBodyThatIsNotWholeTxidsIs400SayingWhy() {
    for (int length : new int[] {1, 31, 33, 32 * 5 + 7}) {
      HttpResponse<byte[]> a = api.postBytes("/v1/tx/lookup", OCTET, new byte[length]);
      assertEquals(400, a.statusCode(), length + " bytes");
      assertEquals("application/json", a.headers().firstValue("content-type").orElseThrow());
      JsonNode j = json(a);
      assertEquals("malformed_body", j.get("error").asText());
      assertTrue(
          j.get("detail").asText().contains(length + " bytes, not a multiple of 32"), j.toString());
    }
  }

  @Test
  void anEmptyBodyIsAnEmptyAnswer() {
    HttpResponse<byte[]> a = api.postBytes("/v1/tx/lookup", OCTET, new byte[0]);
    assertEquals(200, a.statusCode());
    assertEquals(0, a.body().length);
  }

  @Test
  void tenThousandIdsAreServedAndOneMoreIs413() {
    List<String> ids = new ArrayList<>(Collections.nCopies(TxBatchRoute.MAX_BATCH, absent.get(0)));
    ids.set(TxBatchRoute.MAX_BATCH - 1, truth.txs().get(0).txidHex());
    HttpResponse<byte[]> full = api.postBytes("/v1/tx/lookup", OCTET, body(ids));
    assertEquals(200, full.statusCode());
    assertEquals(TxBatchRoute.MAX_BATCH, full.body().length);
    assertEquals(TxBatchRoute.STATUS_ABSENT, full.body()[0]);
    assertEquals(TxBatchRoute.STATUS_CONFIRMED, full.body()[TxBatchRoute.MAX_BATCH - 1]);
    ids.add(absent.get(1));
    HttpResponse<byte[]> over = api.postBytes("/v1/tx/lookup", OCTET, body(ids));
    assertEquals(413, over.statusCode());
    assertEquals("too_many_txids", json(over).get("error").asText());
    // past the body limit the aggregator refuses it before it is read
    HttpResponse<byte[]> huge =
        api.postBytes(
            "/v1/tx/lookup", OCTET, new byte[HttpInitializer.DEFAULT_MAX_BODY_BYTES + 32]);
    assertEquals(413, huge.statusCode());
    assertEquals("payload_too_large", json(huge).get("error").asText());
  }

  @Test
  void theMediaTypeIsMatchedWithoutCaseOrParameters() {
    byte[] one = body(List.of(truth.txs().get(0).txidHex()));
    HttpResponse<byte[]> a =
        api.postBytes("/v1/tx/lookup", "Application/Octet-Stream; foo=bar", one);
    assertEquals(200, a.statusCode());
    assertArrayEquals(new byte[] {TxBatchRoute.STATUS_CONFIRMED}, a.body());
    // any other type is the JSON form, which these bytes are not
    HttpResponse<byte[]> text = api.postBytes("/v1/tx/lookup", "text/plain", one);
    assertEquals(400, text.statusCode());
    assertEquals("malformed_body", json(text).get("error").asText());
  }

  private static JsonNode json(HttpResponse<byte[]> a) {
    try {
      return ApiClient.JSON.readTree(new String(a.body(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + a.statusCode(), e);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
