package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * An {@code Expect} other than 100-continue is answered with the API's JSON error, not Netty's bare
 * 417 (found by {@code HttpRequestFuzzTest}, input {@code
 * finding-unsupported-expect-417-without-json}).
 */
class JsonObjectAggregatorTest {

  @Test
  void anUnsupportedExpectationIsAJson417() {
    EmbeddedChannel ch = new EmbeddedChannel(new JsonObjectAggregator(1024));
    ch.writeInbound(
        new io.netty.handler.codec.http.DefaultHttpRequest(
            io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
            io.netty.handler.codec.http.HttpMethod.POST,
            "/v1/tx/lookup",
            new io.netty.handler.codec.http.DefaultHttpHeaders()
                .set(HttpHeaderNames.EXPECT, "100-bogus")
                .set(HttpHeaderNames.CONTENT_LENGTH, 2)));
    FullHttpResponse r = ch.readOutbound();
    try {
      assertEquals(417, r.status().code());
      assertEquals("application/json", r.headers().get(HttpHeaderNames.CONTENT_TYPE));
      assertEquals(
          "{\"error\":\"expectation_failed\",\"detail\":\"the only Expect this server supports is"
              + " 100-continue\"}",
          r.content().toString(StandardCharsets.UTF_8));
    } finally {
      r.release();
      ch.releaseOutbound(); // not finished: the request's body never comes
    }
  }
}
