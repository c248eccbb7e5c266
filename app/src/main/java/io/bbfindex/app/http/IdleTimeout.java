package io.bbfindex.app.http;

import io.bbfindex.app.metrics.ConnectionMetrics;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Closes a connection that has neither read nor flushed anything for the idle timeout (counted).
 * This also frees a connection whose peer stopped reading: it is not writable, so it stopped
 * reading too (see {@link WritabilityGate}), and both sides fall idle.
 *
 * <p>One instance per connection. Activity is only noted (one clock read per read and per flush),
 * and one timer per connection, armed when the connection becomes active, checks when it fires
 * whether the connection has been quiet for the whole timeout, and else re-arms itself for the rest
 * of it. WHY not Netty's {@code IdleStateHandler}: to see write completions it turns every write's
 * void promise into a real one and adds a listener to it, an allocation and a notification per
 * response for an event that happens once a minute (about 1.5 % of the server's CPU on absent txids
 * under wrk, JFR). Counting a flush rather than its completion as activity changes nothing that
 * matters: a flush whose bytes never leave (a peer that reads nothing) is followed by no further
 * activity, so the timeout still fires one idle period after it.
 */
final class IdleTimeout extends ChannelDuplexHandler {
  private final long idleNanos;
  private final ConnectionMetrics metrics;

  /** {@link System#nanoTime()} of the last read or flush (or of the start). */
  private long lastActivity;

  private @Nullable ScheduledFuture<?> clock;

  IdleTimeout(Duration idle, ConnectionMetrics metrics) {
    this.idleNanos = idle.toNanos();
    this.metrics = metrics;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
      arm(ctx); // an accepted channel is active before its pipeline is built
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    arm(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    lastActivity = System.nanoTime();
    ctx.fireChannelRead(msg);
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    lastActivity = System.nanoTime();
    ctx.flush();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    disarm();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    disarm();
  }

  private void arm(ChannelHandlerContext ctx) {
    if (clock == null) {
      lastActivity = System.nanoTime();
      clock = ctx.executor().schedule(() -> check(ctx), idleNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** The timer fired: close a connection quiet for the whole timeout, else wait for the rest. */
  private void check(ChannelHandlerContext ctx) {
    if (!ctx.channel().isOpen()) {
      clock = null;
      return;
    }
    long left = lastActivity + idleNanos - System.nanoTime();
    if (left > 0) {
      clock = ctx.executor().schedule(() -> check(ctx), left, TimeUnit.NANOSECONDS);
      return;
    }
    clock = null;
    metrics.timedOut(ConnectionMetrics.Timeout.IDLE);
    ctx.close();
  }

  private void disarm() {
    if (clock != null) {
      clock.cancel(false);
      clock = null;
    }
  }
}
