package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.app.ops.OpsRoutes;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzz target: HTTP request handling, bytes in to responses out, through the production pipeline
 * ({@link HttpInitializer}: Netty's HTTP/1.1 codec, the JSON 413 aggregator, the 100-continue
 * handler, the {@link ApiHandler}) over the real backend of the mainnet 0-599 fixture, on an {@link
 * EmbeddedChannel}.
 *
 * <p>Input: one byte, the size of the pieces the rest arrives in (0: all at once), then the bytes a
 * client sends. The body limit is 2 KiB here, so the 413 paths are in reach.
 *
 * <p>Invariants, for every input: no exception reaches the end of the pipeline and the server logs
 * no warning or error (an unexpected exception, a leaked buffer); every response the server writes
 * is a complete response with a Content-Length equal to its body, a status below 500 (505 only, for
 * an HTTP version it does not speak), and a JSON body with {@code error} and {@code detail} strings
 * when it is an error (a lookup's 404 is an answer with {@code "present": false}; under the esplora
 * prefix errors are esplora's plain text); a response that says {@code Connection: close} is
 * followed by a closed connection; and a connection the server closes got an answer first.
 */
class HttpRequestFuzzTest {

  private static final int MAX_BODY_BYTES = 2048;
  private static final ObjectMapper JSON = new ObjectMapper();

  @FuzzTest
  // libFuzzer dictionary syntax: quotes, backslashes and control characters as \xNN escapes
  @DictionaryEntries({
    "GET ",
    "POST ",
    "HEAD ",
    "OPTIONS ",
    " HTTP/1.1\\x0d\\x0a",
    " HTTP/1.0\\x0d\\x0a",
    "\\x0d\\x0a",
    "\\x0d\\x0a\\x0d\\x0a",
    "Host: x\\x0d\\x0a",
    "Content-Length: ",
    "Transfer-Encoding: chunked\\x0d\\x0a",
    "Expect: 100-continue\\x0d\\x0a",
    "Connection: close\\x0d\\x0a",
    "Connection: keep-alive\\x0d\\x0a",
    "/v1/tx/",
    "/v1/tx/lookup",
    "/v1/block/",
    "/v1/filters",
    "/v1/status",
    "/v1/eth/tx/",
    "/metrics",
    "/livez",
    "/readyz",
    "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16",
    "[\\x22",
    "\\x22]",
    "0\\x0d\\x0a\\x0d\\x0a"
  })
  void request(byte[] input) {
    if (input.length == 0) {
      return;
    }
    FixtureApi.WARNINGS.forget();
    int piece = input[0] == 0 ? Integer.MAX_VALUE : input[0] & 0xFF;
    ResponseRecorder recorder = new ResponseRecorder();
    EmbeddedChannel ch = new EmbeddedChannel();
    new HttpInitializer(FixtureApi.HANDLER, MAX_BODY_BYTES).initChannel(ch);
    ch.pipeline().addAfter("codec", "recorder", recorder);
    for (int at = 1; at < input.length && ch.isOpen(); ) {
      int length = Math.min(piece, input.length - at);
      ch.writeInbound(Unpooled.wrappedBuffer(input, at, length));
      ch.checkException();
      at += length;
    }
    ch.runPendingTasks();
    ch.checkException();
    boolean closedByServer = !ch.isOpen();
    // Responses written before the client hangs up; closing the channel below makes the decoder
    // hand on an unfinished request, which is answered (400, close) on the closed channel.
    int writtenWhileOpen = recorder.written.size();
    ch.finishAndReleaseAll();
    FixtureApi.WARNINGS.assertNothingLogged("request " + printable(input));

    boolean closeAnnounced = false;
    try {
      for (int i = 0; i < recorder.written.size(); i++) {
        Object written = recorder.written.get(i);
        assertTrue(
            written instanceof FullHttpResponse, "a partial response was written: " + written);
        boolean close = check((FullHttpResponse) written);
        closeAnnounced |= close && i < writtenWhileOpen;
      }
    } finally {
      recorder.written.forEach(ReferenceCountUtil::release);
    }
    if (closeAnnounced) {
      assertTrue(closedByServer, "the server said Connection: close and kept the connection");
    }
    if (closedByServer) {
      assertFalse(recorder.written.isEmpty(), "the server closed the connection without an answer");
    }
  }

  /** Checks one response; returns whether it announces that the connection closes. */
  private static boolean check(FullHttpResponse r) {
    int status = r.status().code();
    if (status == HttpResponseStatus.CONTINUE.code()) {
      return false;
    }
    assertTrue(
        status < 500 || status == HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED.code(),
        "server error " + r.status() + " for bad input: " + body(r));
    HttpHeaders headers = r.headers();
    assertEquals(
        r.content().readableBytes(),
        headers.getInt(HttpHeaderNames.CONTENT_LENGTH, -1),
        "Content-Length differs from the body");
    String type = headers.get(HttpHeaderNames.CONTENT_TYPE);
    assertNotNull(type, "no Content-Type");
    if (type.startsWith("application/json")) {
      JsonNode json;
      try {
        json = JSON.readTree(body(r));
      } catch (IOException e) {
        throw new AssertionError("the JSON body does not parse: " + body(r), e);
      }
      // a 404 of a lookup is an answer ({"txid"|"hash": ..., "present": false}), not an error
      boolean absent = status == 404 && json.path("present").isBoolean();
      if (status >= 400 && !absent) {
        assertTrue(
            json.path("error").isTextual() && json.path("detail").isTextual(),
            "an error body without error and detail: " + body(r));
      }
    } else if (PAGE_TYPES.contains(type)) {
      // the page at / and its two files (PageRoutes): served, or 304 for a matching If-None-Match
      assertTrue(status == 200 || status == 304, "the page answered " + status + ": " + type);
    } else {
      // Prometheus text; esplora's answers and plain-text refusals under its prefix, and the
      // wallet's hex; raw transaction and block bytes
      assertTrue(
          type.equals(OpsRoutes.PROMETHEUS_TEXT.toString())
              || type.equals("text/plain")
              || type.equals("application/octet-stream"),
          "unexpected Content-Type: " + type);
    }
    return headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
  }

  /** The types of the page at {@code /} and its script and style sheet. */
  private static final java.util.Set<String> PAGE_TYPES =
      java.util.Set.of(
          "text/html; charset=utf-8", "text/javascript; charset=utf-8", "text/css; charset=utf-8");

  private static String body(FullHttpResponse r) {
    return r.content().toString(StandardCharsets.UTF_8);
  }

  private static String printable(byte[] input) {
    return ByteBufUtil.hexDump(input, 0, Math.min(input.length, 512));
  }

  /**
   * Sits between the codec and the aggregator and keeps a copy of every response on its way out.
   */
  private static final class ResponseRecorder extends ChannelOutboundHandlerAdapter {
    final List<Object> written = new ArrayList<>();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (msg instanceof FullHttpResponse full) {
        written.add(full.copy());
      } else if (msg instanceof HttpResponse partial) {
        written.add(partial);
      }
      ctx.write(msg, promise);
    }
  }
}
