package io.bbfindex.app.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import org.jspecify.annotations.Nullable;

/**
 * Turns a request that announces no body (no {@code Content-Length} or 0, not chunked, no {@code
 * Expect}) and its empty last content into one {@link FullHttpRequest} with an empty buffer, before
 * the aggregator. WHY: every GET would otherwise cost the aggregator a composite buffer and a
 * wrapper object for a body that is known to be empty; the aggregator passes full requests through,
 * and keeps handling everything else (bodies, limits, {@code Expect: 100-continue}, bad input).
 *
 * <p>One instance per connection: it holds the request line and headers between the two messages
 * the codec emits for them (normally in the same read).
 */
final class BodilessRequests extends ChannelInboundHandlerAdapter {
  private @Nullable HttpRequest held;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (held != null) {
      HttpRequest start = held;
      held = null;
      if (msg instanceof LastHttpContent last
          && !last.content().isReadable()
          && last.trailingHeaders().isEmpty()
          && last.decoderResult().isSuccess()) {
        last.release();
        ctx.fireChannelRead(
            new DefaultFullHttpRequest(
                start.protocolVersion(),
                start.method(),
                start.uri(),
                Unpooled.EMPTY_BUFFER,
                start.headers(),
                EmptyHttpHeaders.INSTANCE));
        return;
      }
      ctx.fireChannelRead(start); // not what it announced: the aggregator sorts it out
    }
    if (msg instanceof HttpRequest request
        && !(msg instanceof FullHttpRequest)
        && request.decoderResult().isSuccess()
        && announcesNoBody(request)) {
      held = request;
      return;
    }
    ctx.fireChannelRead(msg);
  }

  private static boolean announcesNoBody(HttpRequest request) {
    // no parsing here: a Content-Length other than none or "0" goes the aggregator's way
    return !HttpUtil.isTransferEncodingChunked(request)
        && !request.headers().contains(HttpHeaderNames.EXPECT)
        && noLength(request.headers().get(HttpHeaderNames.CONTENT_LENGTH));
  }

  private static boolean noLength(String contentLength) {
    return contentLength == null || contentLength.equals("0");
  }
}
