package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handler and the pipeline without sockets: {@link EmbeddedChannel}s, with every buffer
 * released ({@code finishAndReleaseAll} must find nothing left over; the suite runs with Netty's
 * paranoid leak detector).
 */
class ApiHandlerTest {
  private static final String PAYMENT_170 =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

  @TempDir static Path tmp;
  static ChainBackend backend;

  PrometheusMeterRegistry registry;
  ApiHandler handler;

  @BeforeAll
  static void openBackend() throws IOException {
    backend = CoreBackends.open(Archive.MAINNET_LDB, tmp);
  }

  @AfterAll
  static void closeBackend() {
    backend.close();
  }

  @BeforeEach
  void newHandler() {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Metrics metrics = new Metrics(registry, "test");
    metrics.bindBackend(backend);
    handler = BitcoinHandler.over(backend, registry, metrics);
  }

  @AfterEach
  void closeRegistry() {
    registry.close();
  }

  @Test
  void aKeepAliveLookupIsWrittenAndFlushedOnReadComplete() {
    EmbeddedChannel ch = new EmbeddedChannel(handler);
    ch.writeInbound(request(HttpMethod.GET, "/v1/tx/" + PAYMENT_170, null));
    FullHttpResponse r = ch.readOutbound();
    try {
      assertEquals(200, r.status().code());
      assertTrue(HttpUtil.isKeepAlive(r));
      JsonNode j = json(r);
      assertEquals(170, j.get("height").asInt());
      assertEquals(r.content().readableBytes(), r.headers().getInt(HttpHeaderNames.CONTENT_LENGTH));
    } finally {
      r.release();
    }
    assertTrue(ch.isOpen(), "keep-alive leaves the channel open");
    assertFalse(ch.finishAndReleaseAll());
  }

  @Test
  void connectionCloseClosesAfterTheResponse() {
    EmbeddedChannel ch = new EmbeddedChannel(handler);
    FullHttpRequest req = request(HttpMethod.GET, "/livez", null);
    req.headers().set(HttpHeaderNames.CONNECTION, "close");
    ch.writeInbound(req);
    FullHttpResponse r = ch.readOutbound();
    assertEquals("close", r.headers().get(HttpHeaderNames.CONNECTION));
    r.release();
    assertFalse(ch.isOpen());
    assertFalse(ch.finishAndReleaseAll());
  }

  @Test
  void aDecoderFailureIs400AndCloses() {
    EmbeddedChannel ch =
        new EmbeddedChannel(new HttpServerCodec(), new HttpObjectAggregator(1024), handler);
    ch.writeInbound(
        Unpooled.copiedBuffer("GET /livez HTTP/1.1\r\nHost x\r\n\r\n", StandardCharsets.US_ASCII));
    FullHttpResponse r = decodeResponse(ch);
    try {
      assertEquals(400, r.status().code());
      assertEquals("bad_request", json(r).get("error").asText());
    } finally {
      r.release();
    }
    assertFalse(ch.isOpen());
    assertFalse(ch.finishAndReleaseAll());
  }

  @Test
  void theFullPipelineAnswers413JsonForAnOversizedBodyAndKeepsTheConnection() {
    EmbeddedChannel ch = new EmbeddedChannel();
    new HttpInitializer(handler, 64).initChannel(ch);
    ByteBuf wire = Unpooled.buffer();
    String body = "[\"" + "a".repeat(100) + "\"]";
    wire.writeCharSequence(
        "POST /v1/tx/lookup HTTP/1.1\r\nHost: localhost\r\nContent-Length: "
            + body.length()
            + "\r\n\r\n"
            + body
            + "GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n",
        StandardCharsets.US_ASCII);
    ch.writeInbound(wire);
    FullHttpResponse[] responses = decodeResponses(ch, 2);
    try {
      assertEquals(413, responses[0].status().code());
      assertEquals("payload_too_large", json(responses[0]).get("error").asText());
      assertEquals(
          200, responses[1].status().code(), "the next request on the connection is served");
    } finally {
      for (FullHttpResponse r : responses) {
        r.release();
      }
    }
    assertFalse(ch.finishAndReleaseAll());
  }

  @Test
  void aNonHttpMessageIsPassedOn() {
    EmbeddedChannel ch = new EmbeddedChannel(handler);
    ch.writeInbound("not a request");
    assertEquals("not a request", ch.readInbound());
    assertNull(ch.readOutbound());
    assertFalse(ch.finishAndReleaseAll());
  }

  private static FullHttpRequest request(HttpMethod method, String uri, String body) {
    ByteBuf content =
        body == null ? Unpooled.EMPTY_BUFFER : Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
    return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri, content);
  }

  private static JsonNode json(FullHttpResponse r) {
    try {
      return ApiClient.JSON.readTree(r.content().toString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static FullHttpResponse decodeResponse(EmbeddedChannel server) {
    return decodeResponses(server, 1)[0];
  }

  /** Feeds the server's outbound bytes through a client-side decoder and returns the responses. */
  private static FullHttpResponse[] decodeResponses(EmbeddedChannel server, int n) {
    EmbeddedChannel client =
        new EmbeddedChannel(
            new HttpRequestEncoder(), new HttpResponseDecoder(), new HttpObjectAggregator(1 << 20));
    for (Object out = server.readOutbound(); out != null; out = server.readOutbound()) {
      client.writeInbound(out);
    }
    FullHttpResponse[] responses = new FullHttpResponse[n];
    for (int i = 0; i < n; i++) {
      responses[i] = client.readInbound();
      if (responses[i] == null) {
        throw new AssertionError("expected " + n + " responses, got " + i);
      }
    }
    assertFalse(client.finishAndReleaseAll());
    return responses;
  }
}
