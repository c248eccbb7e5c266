package io.bbfindex.app.http;

import io.bbfindex.app.metrics.ConnectionMetrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;

/**
 * Backpressure: stops reading requests while the connection is not writable (more than the high
 * water mark of answers queued, i.e. the peer does not read them) and resumes below the low mark.
 *
 * <p>WHY: a client that pipelines thousands of cheap requests and reads nothing would otherwise
 * make the server render and queue every answer (680 KB of {@code GET /metrics} became 1.3 GB).
 * With reads stopped, what is queued is bounded by one read batch of requests, held undecoded or
 * decoded but unanswered in Netty's {@code FlowControlHandler} just before this handler.
 */
@Sharable
final class WritabilityGate extends ChannelInboundHandlerAdapter {
  /** Netty's default marks, spelt out because the bound on queued answers depends on them. */
  static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(32 * 1024, 64 * 1024);

  private final ConnectionMetrics metrics;

  WritabilityGate(ConnectionMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    Channel ch = ctx.channel();
    boolean writable = ch.isWritable();
    if (!writable) {
      metrics.readsPaused();
      // The API writes without flushing and flushes at the end of a read batch; with reads paused
      // there may be no such end, so flush here or the queue would never drain. Later, on the
      // event loop, not inside the write that crossed the mark.
      ctx.executor().execute(ch::flush);
    }
    // Turning auto-read back on asks for the next read, which FlowControlHandler serves from the
    // requests it holds before the socket is read again.
    ch.config().setAutoRead(writable);
    ctx.fireChannelWritabilityChanged();
  }
}
