package io.bbfindex.app.http;

import io.bbfindex.app.metrics.ConnectionMetrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admits at most {@code max} open connections for the API, and {@value #HEALTH_RESERVE} more for
 * the {@link HealthRoutes} only; a connection over both gets a 503 with {@code Connection: close}
 * as soon as it is accepted, and the connections already open never notice.
 *
 * <p>WHY: without a cap, idle or abusive clients can hold every file descriptor of the process, and
 * then {@code /livez} and real lookups cannot even be accepted. The cap sits below the fd limit, so
 * the server always has descriptors left to refuse politely with.
 *
 * <p>WHY the reserve: a server that holds its maximum of connections is busy, not dead, and its
 * load balancer's health check, its orchestrator's liveness probe and its metrics scrape must still
 * get through. A connection admitted into the reserve may ask health routes only (anything else is
 * a 503 {@code too_many_connections} and the connection closes) and must send its first request
 * within {@value #RESERVE_FIRST_REQUEST_MILLIS} ms, so idle clients cannot sit on the reserve.
 *
 * <p>Also the place that knows every open connection, so it serves the open-connection and
 * queued-bytes gauges; its {@link #reserveGuard()}, after the aggregator, enforces the reserve.
 */
@Sharable
final class ConnectionCap extends ChannelInboundHandlerAdapter {
  /** Connections admitted over the cap for health, readiness and metrics requests only. */
  static final int HEALTH_RESERVE = 16;

  /** A reserve connection that has not sent a request by then is closed. */
  static final long RESERVE_FIRST_REQUEST_MILLIS = 2_000;

  private static final AttributeKey<Boolean> RESERVE =
      AttributeKey.valueOf(ConnectionCap.class, "healthReserve");

  private final int max;
  private final ConnectionMetrics metrics;
  private final AtomicInteger open = new AtomicInteger();
  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

  ConnectionCap(int max, ConnectionMetrics metrics) {
    this.max = max;
    this.metrics = metrics;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Channel ch = ctx.channel();
    int n = open.incrementAndGet();
    if (n > max + HEALTH_RESERVE) {
      open.decrementAndGet();
      metrics.connectionRefused();
      Replies.answerAndClose(ctx, tooMany());
      return;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    channels.add(ch);
    if (n > max) {
      ch.attr(RESERVE).set(Boolean.FALSE); // in the reserve, no request yet
      ctx.executor()
          .schedule(
              () -> {
                if (Boolean.FALSE.equals(ch.attr(RESERVE).get())) {
                  ch.close();
                }
              },
              RESERVE_FIRST_REQUEST_MILLIS,
              TimeUnit.MILLISECONDS);
    }
    ctx.fireChannelActive();
  }

  /** The handler that keeps reserve connections to the health routes; after the aggregator. */
  ChannelInboundHandlerAdapter reserveGuard() {
    return reserveGuard;
  }

  private final ChannelInboundHandlerAdapter reserveGuard = new ReserveGuard();

  @Sharable
  private final class ReserveGuard extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Channel ch = ctx.channel();
      if (!(msg instanceof FullHttpRequest request) || !ch.hasAttr(RESERVE)) {
        ctx.fireChannelRead(msg);
        return;
      }
      ch.attr(RESERVE).set(Boolean.TRUE);
      if (HealthRoutes.is(request.uri())) {
        ctx.fireChannelRead(msg);
        return;
      }
      metrics.connectionRefused();
      try {
        Replies.answerAndClose(ctx, tooMany());
      } finally {
        request.release();
      }
    }
  }

  private FullHttpResponse tooMany() {
    return Replies.retryLater(
        HttpResponseStatus.SERVICE_UNAVAILABLE,
        "too_many_connections",
        "the server holds its maximum of " + max + " connections; retry later",
        1);
  }

  /** Connections admitted and still open (those of the health reserve too). */
  long open() {
    return open.get();
  }

  /**
   * Response bytes written by the handlers and not yet taken by the kernel, over all connections.
   */
  long queuedBytes() {
    long total = 0;
    for (Channel ch : channels) {
      ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
      if (out != null) {
        total += out.totalPendingWriteBytes();
      }
    }
    return total;
  }
}
