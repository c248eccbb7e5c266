package io.bbfindex.app.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;

/**
 * {@link HttpObjectAggregator} whose "body too large" answers are the API's JSON 413 instead of
 * Netty's empty one. The connection handling is Netty's: when the rest of an oversized body would
 * still arrive on a keep-alive connection, the aggregator discards it and the connection stays
 * usable; otherwise it is closed after the answer.
 */
final class JsonObjectAggregator extends HttpObjectAggregator {
  private final int maxContentLength;

  JsonObjectAggregator(int maxContentLength) {
    super(maxContentLength);
    this.maxContentLength = maxContentLength;
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized)
      throws Exception {
    if (!(oversized instanceof HttpRequest request)) {
      super.handleOversizedMessage(ctx, oversized);
      return;
    }
    FullHttpResponse tooLarge = tooLarge();
    boolean close =
        oversized instanceof FullHttpMessage
            || (!HttpUtil.is100ContinueExpected(request) && !HttpUtil.isKeepAlive(request));
    if (close) {
      tooLarge.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(tooLarge).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.writeAndFlush(tooLarge).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }
  }

  @Override
  protected Object newContinueResponse(
      HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    Object answer = super.newContinueResponse(start, maxContentLength, pipeline);
    if (answer instanceof HttpResponse r
        && r.status().code() == HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code()) {
      ReferenceCountUtil.release(answer);
      return tooLarge();
    }
    if (answer instanceof HttpResponse r
        && r.status().code() == HttpResponseStatus.EXPECTATION_FAILED.code()) {
      // An Expect other than 100-continue: Netty's bare 417 (no type, no body) in the API's JSON.
      ReferenceCountUtil.release(answer);
      return ApiHandler.error(
          new ApiError(
              HttpResponseStatus.EXPECTATION_FAILED,
              "expectation_failed",
              "the only Expect this server supports is 100-continue"));
    }
    return answer;
  }

  private FullHttpResponse tooLarge() {
    return ApiHandler.error(
        new ApiError(
            HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
            "payload_too_large",
            "the request body is larger than " + maxContentLength + " bytes"));
  }
}
