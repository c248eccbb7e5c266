package io.bbfindex.app.sse;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.app.push.PushEvent;
import io.bbfindex.app.push.PushMetrics;
import io.bbfindex.app.push.Subscriber;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One {@code text/event-stream} response: the headers, then each event as {@code id:}, {@code
 * event:} and {@code data:} lines in a chunk of its own, and a comment line every heartbeat period
 * so that proxies and clients see the stream alive. Everything is written on the channel's event
 * loop; a client that stops reading fills the channel's bounded outbound buffer, and at the next
 * event or heartbeat that finds it full the stream is closed (and counted), never buffered further.
 */
final class SseStream implements Subscriber {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final byte[] HEARTBEAT = ":\n\n".getBytes(StandardCharsets.US_ASCII);

  private final Channel channel;
  private final PushMetrics metrics;

  /** Set (on the event loop) once the stream is closed for not reading. */
  private boolean dropped;

  private SseStream(Channel channel, PushMetrics metrics) {
    this.channel = channel;
    this.metrics = metrics;
  }

  /**
   * Writes the response's headers on {@code ctx} (the API handler's, which the stream replaces:
   * requests pipelined behind it are dropped), starts the heartbeat and subscribes through {@code
   * subscribe}; {@code unsubscribe} runs when the connection closes.
   */
  static void start(
      ChannelHandlerContext ctx,
      HttpVersion version,
      PushMetrics metrics,
      String kind,
      Duration heartbeat,
      Consumer<SseStream> subscribe,
      Consumer<SseStream> unsubscribe) {
    SseStream stream = new SseStream(ctx.channel(), metrics);
    subscribe.accept(stream); // may refuse (503) before anything is written
    HttpResponse head = new DefaultHttpResponse(version, HttpResponseStatus.OK);
    head.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE)
        .set("X-Accel-Buffering", "no"); // nginx would otherwise hold the events back
    HttpUtil.setTransferEncodingChunked(head, true);
    ctx.writeAndFlush(head);
    ctx.pipeline().replace(ctx.handler(), "sse", new DropRequests());
    metrics.opened(kind);
    long period = heartbeat.toMillis();
    ScheduledFuture<?> beat =
        ctx.executor()
            .scheduleAtFixedRate(stream::heartbeat, period, period, TimeUnit.MILLISECONDS);
    ctx.channel()
        .closeFuture()
        .addListener(
            f -> {
              beat.cancel(false);
              unsubscribe.accept(stream);
              metrics.closed(kind);
            });
  }

  @Override
  public void deliver(PushEvent event) {
    channel.eventLoop().execute(() -> write(event));
  }

  private void write(PushEvent event) {
    String data;
    try {
      data = MAPPER.writeValueAsString(event.data());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a push event", e);
    }
    String text = "id: " + event.id() + "\nevent: " + event.kind() + "\ndata: " + data + "\n\n";
    if (send(text.getBytes(StandardCharsets.UTF_8))) {
      metrics.notified(event);
    }
  }

  private void heartbeat() {
    send(HEARTBEAT);
  }

  /** Writes a chunk, or closes a stream whose client has not read what it was sent. */
  private boolean send(byte[] bytes) {
    if (dropped || !channel.isActive()) {
      return false;
    }
    if (!channel.isWritable()) {
      dropped = true; // events already queued for it find it dropped: counted once
      metrics.slowConsumerClosed();
      channel.close();
      return false;
    }
    ByteBuf chunk = channel.alloc().buffer(bytes.length).writeBytes(bytes);
    channel.writeAndFlush(new DefaultHttpContent(chunk), channel.voidPromise());
    return true;
  }

  /** The stream's connection reads no more requests: anything pipelined is released unread. */
  private static final class DropRequests extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close(); // a reset peer or a failed write: the stream is over
    }
  }
}
