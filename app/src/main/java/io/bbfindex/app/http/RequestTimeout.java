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
import org.jspecify.annotations.Nullable;

/**
 * Bounds the time from a request's first byte to its last (line, headers and body): a slowloris
 * client that trickles a header every few seconds keeps the idle timeout from firing, but not this
 * one. On expiry the client gets a 408 and the connection is closed.
 *
 * <p>One instance per connection, in two places of the pipeline: {@link #firstByte()} before the
 * codec arms the clock on bytes that arrive while no request is in progress, {@link #complete()}
 * after the aggregator stops it when a whole request came out (and writes the 408 from there, so it
 * goes through the codec's encoder).
 *
 * <p>The clock is not scheduled and cancelled per request: a request's start is only noted (one
 * clock read), and one timer per connection, armed by the first request, checks when it fires
 * whether the request in progress (if any) is overdue, and re-arms itself for the rest of that
 * request's time. WHY: a timer per request put a scheduled task into the event loop's queue and
 * took it out again on every keep-alive request, a per-request cost for a rare event.
 */
final class RequestTimeout {
  /** Value of {@link #startedAt} while no request is in progress. */
  private static final long IDLE = Long.MIN_VALUE;

  private final long timeoutNanos;
  private final ConnectionMetrics metrics;
  private @Nullable ScheduledFuture<?> clock;
  private @Nullable ChannelHandlerContext answerFrom;

  /** {@link System#nanoTime()} at the first byte of the request in progress, or {@link #IDLE}. */
  private long startedAt = IDLE;

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

  private void start(ChannelHandlerContext ctx) {
    startedAt = System.nanoTime();
    if (clock == null) {
      clock = ctx.executor().schedule(() -> check(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** The timer fired: answer an overdue request, re-arm for one in progress, else rest. */
  private void check(ChannelHandlerContext ctx) {
    clock = null;
    if (startedAt == IDLE || !ctx.channel().isActive()) {
      return; // the next request's first byte arms it again
    }
    long left = startedAt + timeoutNanos - System.nanoTime();
    if (left > 0) {
      clock = ctx.executor().schedule(() -> check(ctx), left, TimeUnit.NANOSECONDS);
      return;
    }
    expire();
  }

  private void expire() {
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
      if (startedAt == IDLE && msg instanceof ByteBuf bytes && bytes.isReadable()) {
        start(ctx);
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
        startedAt = IDLE;
      }
      ctx.fireChannelRead(msg);
    }
  }
}
