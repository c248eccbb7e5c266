package io.bbfindex.app.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AsciiString;

/**
 * {@code Cache-Control: no-store} by default. A route that knows how final its answer is sets the
 * header itself (the Bitcoin lookups: {@code bitcoin.Finality}); every other answer (errors, 404s,
 * unknown txids, the tip, status, metrics, health) leaves here with {@code no-store}, so nothing
 * that can change is ever cached by accident, whatever route a later change adds.
 */
@Sharable
final class CacheControl extends ChannelOutboundHandlerAdapter {
  static final AsciiString NO_STORE = AsciiString.cached("no-store");

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof HttpResponse response
        && response.status().code() >= 200
        && !response.headers().contains(HttpHeaderNames.CACHE_CONTROL)) {
      response.headers().set(HttpHeaderNames.CACHE_CONTROL, NO_STORE);
    }
    ctx.write(msg, promise);
  }
}
