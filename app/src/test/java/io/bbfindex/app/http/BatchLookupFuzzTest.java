package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.app.bitcoin.TxBatchRoute;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Fuzz target: the batch body parser of {@code POST /v1/tx/lookup}, the handler's streaming JSON
 * reader, checked against a reference reading of the same bytes (Jackson's tree model) and against
 * the single lookup {@code GET /v1/tx/{txid}}, over the real backend of the mainnet 0-599 fixture.
 *
 * <p>Invariants: a body that is a JSON array of at most {@value TxBatchRoute#MAX_BATCH} strings of
 * 64 hex digits is answered 200 with one answer per txid, in order, each the same as the single
 * lookup's answer for it; any other body is answered 400 (413 when it holds more than the limit
 * before its first bad element), with a JSON error; never another status. The server logs nothing
 * at WARNING or above.
 */
class BatchLookupFuzzTest {

  private static final ObjectMapper STRICT =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  @FuzzTest
  // libFuzzer dictionary syntax: quotes, backslashes and control characters as \xNN escapes
  @DictionaryEntries({
    "[",
    "]",
    "\\x22",
    ",",
    "\\x5cu00",
    "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16",
    "0e3e2357e806b6cdb1f70b54c3a3a17b6714ee1f0e68bebb44a74b1efd512098",
    "null",
    "{}",
    "1e3"
  })
  void lookup(byte[] body) {
    FixtureApi.WARNINGS.forget();
    JsonNode answer = post(body);
    int status = answer.get("status").asInt();
    JsonNode json = answer.get("body");
    FixtureApi.WARNINGS.assertNothingLogged("body " + HexFormat.of().formatHex(body));
    Expected expected = expect(body);
    if (expected.status == 200) {
      assertEquals(200, status, "a valid batch was refused: " + json);
      assertEquals(expected.txids.size(), json.size(), "one answer per txid");
      for (int i = 0; i < json.size(); i++) {
        String txid = expected.txids.get(i).asText().toLowerCase(Locale.ROOT);
        assertEquals(txid, json.get(i).get("txid").asText());
        assertEquals(single(txid), json.get(i), "batch answer differs from GET /v1/tx/" + txid);
      }
    } else {
      assertTrue(
          status == 400 || (status == 413 && expected.status == 413),
          "expected 400" + (expected.status == 413 ? " or 413" : "") + ", got " + status);
      assertTrue(json.path("error").isTextual() && json.path("detail").isTextual());
    }
  }

  /** What the API promises for {@code body}: the status, and the txids when it is 200. */
  private record Expected(int status, JsonNode txids) {}

  private static Expected expect(byte[] body) {
    JsonNode tree;
    try {
      tree = STRICT.readTree(body);
    } catch (IOException e) {
      return new Expected(400, null); // (413 allowed too: the limit may come before the error)
    }
    if (tree == null || !tree.isArray()) {
      return new Expected(400, null);
    }
    for (int i = 0; i < tree.size(); i++) {
      JsonNode t = tree.get(i);
      if (!t.isTextual()) {
        return new Expected(400, null);
      }
      if (i == TxBatchRoute.MAX_BATCH) {
        return new Expected(413, null);
      }
      if (!t.asText().matches("[0-9a-fA-F]{64}")) {
        return new Expected(400, null);
      }
    }
    return new Expected(200, tree);
  }

  /** {@code GET /v1/tx/{txid}}'s answer. */
  private static JsonNode single(String txid) {
    return request(HttpMethod.GET, "/v1/tx/" + txid, new byte[0]).get("body");
  }

  private static JsonNode post(byte[] body) {
    return request(HttpMethod.POST, "/v1/tx/lookup", body);
  }

  /** {"status": code, "body": parsed JSON body} of one request to the handler. */
  private static JsonNode request(HttpMethod method, String uri, byte[] body) {
    EmbeddedChannel ch = new EmbeddedChannel(FixtureApi.HANDLER);
    ch.writeInbound(
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1, method, uri, Unpooled.wrappedBuffer(body)));
    FullHttpResponse r = ch.readOutbound();
    try {
      ch.checkException();
      JsonNode parsed = STRICT.readTree(r.content().toString(StandardCharsets.UTF_8));
      return STRICT.createObjectNode().put("status", r.status().code()).set("body", parsed);
    } catch (IOException e) {
      throw new AssertionError("the answer is not JSON", e);
    } finally {
      r.release();
      ch.finishAndReleaseAll();
    }
  }
}
