package io.bbfindex.app.route;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import java.util.List;

/**
 * One request as its route sees it: the channel (for its allocator), the decoded request, the path
 * without its query string and the values of the path's parameters, in the pattern's order.
 */
public record RouteRequest(
    ChannelHandlerContext ctx, FullHttpRequest http, String path, List<String> params) {

  /** The value of the pattern's {@code i}-th parameter ({@code {txid}}, ...), possibly empty. */
  public String param(int i) {
    return params.get(i);
  }

  /** The body's bytes, copied. */
  public byte[] body() {
    ByteBuf content = http.content();
    byte[] b = new byte[content.readableBytes()];
    content.getBytes(content.readerIndex(), b);
    return b;
  }
}
