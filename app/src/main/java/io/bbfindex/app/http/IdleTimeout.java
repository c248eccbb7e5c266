package io.bbfindex.app.http;

import io.bbfindex.app.metrics.ConnectionMetrics;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection that has neither read nor written anything for the idle timeout (Netty's idle
 * detection, counted). This also frees a connection whose peer stopped reading: it is not writable,
 * so it stopped reading too (see {@link WritabilityGate}), and both sides fall idle.
 */
final class IdleTimeout extends IdleStateHandler {
  private final ConnectionMetrics metrics;

  IdleTimeout(Duration idle, ConnectionMetrics metrics) {
    super(0, 0, idle.toNanos(), TimeUnit.NANOSECONDS);
    this.metrics = metrics;
  }

  @Override
  protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
    metrics.timedOut(ConnectionMetrics.Timeout.IDLE);
    ctx.close();
  }
}
