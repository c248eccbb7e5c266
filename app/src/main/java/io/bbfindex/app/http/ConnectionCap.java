package io.bbfindex.app.http;

import io.bbfindex.app.metrics.ConnectionMetrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admits at most {@code max} open connections; the one over the cap gets a 503 with {@code
 * Connection: close} as soon as it is accepted, and the connections already open never notice.
 *
 * <p>WHY: without a cap, idle or abusive clients can hold every file descriptor of the process, and
 * then {@code /livez} and real lookups cannot even be accepted. The cap sits below the fd limit, so
 * the server always has descriptors left to refuse politely with.
 *
 * <p>Also the place that knows every open connection, so it serves the open-connection and
 * queued-bytes gauges.
 */
@Sharable
final class ConnectionCap extends ChannelInboundHandlerAdapter {
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
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      metrics.connectionRefused();
      Replies.answerAndClose(
          ctx,
          Replies.retryLater(
              HttpResponseStatus.SERVICE_UNAVAILABLE,
              "too_many_connections",
              "the server holds its maximum of " + max + " connections; retry later",
              1));
      return;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    channels.add(ch);
    ctx.fireChannelActive();
  }

  /** Connections admitted and still open. */
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
