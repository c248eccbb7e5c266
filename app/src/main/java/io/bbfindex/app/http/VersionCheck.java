package io.bbfindex.app.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Answers 505 to any request whose version is not HTTP/1.0 or 1.1, and closes: Netty's decoder
 * accepts any {@code HTTP/x.y}, and the API would otherwise answer in a version it does not speak
 * ({@code HTTP/9.9 200 OK}). The 505 itself is an HTTP/1.1 answer.
 */
@Sharable
final class VersionCheck extends ChannelInboundHandlerAdapter {
  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FullHttpRequest request
        && request.decoderResult().isSuccess()
        && !request.protocolVersion().equals(HttpVersion.HTTP_1_1)
        && !request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
      String version = request.protocolVersion().text();
      request.release();
      Replies.answerAndClose(
          ctx,
          ApiHandler.error(
              new ApiError(
                  HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED,
                  "http_version_not_supported",
                  "this server speaks HTTP/1.0 and HTTP/1.1, not "
                      + version.substring(0, Math.min(version.length(), 16)))));
      return;
    }
    ctx.fireChannelRead(msg);
  }
}
