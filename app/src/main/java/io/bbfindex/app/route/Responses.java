package io.bbfindex.app.route;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.util.LinkedHashMap;
import java.util.Map;

/** The responses routes answer with: a status, a content type and a body, sized. */
public final class Responses {
  public static final AsciiString APPLICATION_JSON = AsciiString.cached("application/json");

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * Response headers without per-header validation: every name and value the server sets is a
   * constant or a number, so checking them for forbidden characters on every response buys nothing
   * (request headers are still validated by the codec).
   */
  private static final HttpHeadersFactory HEADERS =
      DefaultHttpHeadersFactory.headersFactory().withValidation(false);

  private static final HttpHeadersFactory TRAILERS =
      DefaultHttpHeadersFactory.trailersFactory().withValidation(false);

  private Responses() {}

  /** A response with {@code Content-Type} and {@code Content-Length} set. */
  public static FullHttpResponse response(
      HttpResponseStatus status, AsciiString contentType, ByteBuf body) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body, HEADERS, TRAILERS);
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, contentType)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    return response;
  }

  /** A response whose body is {@code bytes} of {@code contentType}. */
  public static FullHttpResponse bytes(int status, String contentType, byte[] bytes) {
    return response(
        HttpResponseStatus.valueOf(status),
        AsciiString.of(contentType),
        Unpooled.wrappedBuffer(bytes));
  }

  /** {@code body} serialised by Jackson. */
  public static FullHttpResponse json(HttpResponseStatus status, Object body) {
    try {
      return response(
          status, APPLICATION_JSON, Unpooled.wrappedBuffer(MAPPER.writeValueAsBytes(body)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + body.getClass().getSimpleName(), e);
    }
  }

  /** A JSON error response {@code {"error", "detail"}}; Jackson escapes the detail. */
  public static FullHttpResponse error(Refusal refusal) {
    Map<String, String> body = new LinkedHashMap<>();
    body.put("error", refusal.error());
    body.put("detail", refusal.detail());
    return json(refusal.status(), body);
  }
}
