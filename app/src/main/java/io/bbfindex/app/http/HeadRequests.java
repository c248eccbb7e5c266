package io.bbfindex.app.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * {@code HEAD} on every {@code GET} route, without the routes knowing: the request goes on as a
 * {@code GET}, and Netty's server codec, which remembers that it decoded a {@code HEAD}, writes the
 * answer's status and headers (its {@code Content-Length} included) without the body. A 405 that
 * allows {@code GET} also lists {@code HEAD}.
 */
@Sharable
final class HeadRequests extends ChannelDuplexHandler {
  private static final String GET_AND_HEAD = "GET, HEAD";

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FullHttpRequest request && HttpMethod.HEAD.equals(request.method())) {
      request.setMethod(HttpMethod.GET);
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof HttpResponse response
        && response.status().code() == HttpResponseStatus.METHOD_NOT_ALLOWED.code()
        && "GET".equals(response.headers().get(HttpHeaderNames.ALLOW))) {
      response.headers().set(HttpHeaderNames.ALLOW, GET_AND_HEAD);
    }
    ctx.write(msg, promise);
  }
}
