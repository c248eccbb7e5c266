package io.bbfindex.app.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * How the connection guards (rate limit, version check, cap, timeouts) send their own answers:
 * flushed at once, since a guard answers instead of the API and there is no read batch to share a
 * flush with.
 */
final class Replies {
  private Replies() {}

  /** A JSON error answer with {@code Retry-After: seconds}: the client may come back then. */
  static FullHttpResponse retryLater(
      HttpResponseStatus status, String error, String detail, long seconds) {
    FullHttpResponse response = ApiHandler.error(new ApiError(status, error, detail));
    response.headers().set(HttpHeaderNames.RETRY_AFTER, seconds);
    return response;
  }

  /** Answers {@code request}, keeping the connection when the request asked to keep it. */
  static void answer(ChannelHandlerContext ctx, HttpRequest request, FullHttpResponse response) {
    if (!HttpUtil.isKeepAlive(request)) {
      answerAndClose(ctx, response);
      return;
    }
    if (request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
      response.setProtocolVersion(HttpVersion.HTTP_1_0);
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
  }

  /** Answers with {@code Connection: close} and closes once the answer is written. */
  static void answerAndClose(ChannelHandlerContext ctx, FullHttpResponse response) {
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }
}
