package io.bbfindex.app.http;

import io.bbfindex.app.metrics.ConnectionMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Bounds the time from a request's first byte to its last (line, headers and body): a slowloris
 * client that trickles a header every few seconds keeps the idle timeout from firing, but not this
 * one. On expiry the client gets a 408 and the connection is closed.
 *
 * <p>One instance per connection, in two places of the pipeline: {@link #firstByte()} before the
 * codec arms the clock on bytes that arrive while no request is in progress, {@link #complete()}
 * after the aggregator stops it when a whole request came out (and writes the 408 from there, so it
 * goes through the codec's encoder).
 */
final class RequestTimeout {
  private final long timeoutNanos;
  private final ConnectionMetrics metrics;
  private ScheduledFuture<?> clock;
  private ChannelHandlerContext answerFrom;

  RequestTimeout(Duration timeout, ConnectionMetrics metrics) {
    this.timeoutNanos = timeout.toNanos();
    this.metrics = metrics;
  }

  ChannelInboundHandlerAdapter firstByte() {
    return new FirstByte();
  }

  ChannelInboundHandlerAdapter complete() {
    return new Complete();
  }

  private void expire() {
    clock = null;
    if (answerFrom == null || !answerFrom.channel().isActive()) {
      return;
    }
    metrics.timedOut(ConnectionMetrics.Timeout.REQUEST);
    Replies.answerAndClose(
        answerFrom,
        ApiHandler.error(
            new ApiError(
                HttpResponseStatus.REQUEST_TIMEOUT,
                "request_timeout",
                "the request did not arrive in full within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                    + " ms")));
  }

  private void stop() {
    if (clock != null) {
      clock.cancel(false);
      clock = null;
    }
  }

  private final class FirstByte extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (clock == null && msg instanceof ByteBuf bytes && bytes.isReadable()) {
        clock =
            ctx.executor()
                .schedule(RequestTimeout.this::expire, timeoutNanos, TimeUnit.NANOSECONDS);
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      stop();
      ctx.fireChannelInactive();
    }
  }

  private final class Complete extends ChannelInboundHandlerAdapter {
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      answerFrom = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof LastHttpContent) { // a FullHttpRequest out of the aggregator is one too
        stop();
      }
      ctx.fireChannelRead(msg);
    }
  }
}
