package io.bbfindex.app.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;

/**
 * {@code HEAD} on every {@code GET} route, without the routes knowing: the request goes on as a
 * {@code GET}, and Netty's server codec, which remembers that it decoded a {@code HEAD}, writes the
 * answer's status and headers (its {@code Content-Length} included) without the body. (The route
 * table lists {@code HEAD} beside {@code GET} in a 405's {@code Allow}.)
 */
@Sharable
final class HeadRequests extends ChannelInboundHandlerAdapter {
  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FullHttpRequest request && HttpMethod.HEAD.equals(request.method())) {
      request.setMethod(HttpMethod.GET);
    }
    ctx.fireChannelRead(msg);
  }
}
