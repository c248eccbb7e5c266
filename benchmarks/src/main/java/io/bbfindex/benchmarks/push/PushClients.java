package io.bbfindex.benchmarks.push;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.ingest.encoding.Hash32;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakerFactory;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Thousands of push subscribers in one JVM on one Netty event loop group: subscriber {@code i}
 * tracks txid {@code i}, over the WebSocket ({@code track-tx}, mempool.space's dialect) when {@code
 * i} is even and over Server-Sent Events ({@code /v1/tx/{txid}/events}) when odd. A subscriber
 * counts as subscribed when the server has registered it: the WebSocket's {@code pong} to the same
 * message as its {@code track-tx}, the stream's first event (the tx's current state, which must be
 * {@code mempool}). After that every notification it gets is counted and the receipt time of the
 * first kept.
 */
final class PushClients implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Connections being opened at once: the server's accept queue and handshakes stay short. */
  private static final int IN_FLIGHT = 256;

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final List<Hash32> txids;
  private final URI http;
  private final URI ws;
  private final AtomicIntegerArray notifications;
  private final AtomicLongArray firstReceipt;
  private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Channel> channels = new ConcurrentLinkedQueue<>();
  private final CountDownLatch subscribed;
  private final Semaphore inFlight = new Semaphore(IN_FLIGHT);

  /** Set when the benchmark closes the connections: their ends are no errors then. */
  private volatile boolean closing;

  /**
   * @param baseUrl the server, {@code http://HOST:PORT}
   * @param wsPath the WebSocket's path ({@code /api/v1/ws})
   */
  PushClients(String baseUrl, String wsPath, List<Hash32> txids) {
    this.txids = List.copyOf(txids);
    this.http = URI.create(baseUrl);
    this.ws = URI.create(baseUrl.replace("http://", "ws://") + wsPath);
    this.notifications = new AtomicIntegerArray(txids.size());
    this.firstReceipt = new AtomicLongArray(txids.size());
    this.subscribed = new CountDownLatch(txids.size());
  }

  static boolean isWebSocket(int i) {
    return i % 2 == 0;
  }

  /**
   * Opens every subscriber, at most {@value #IN_FLIGHT} at a time; returns once all are subscribed.
   *
   * @throws IOException if some are not within {@code timeout} or failed
   */
  void subscribeAll(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < txids.size(); i++) {
      if (!inFlight.tryAcquire(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        break;
      }
      open(i);
    }
    if (!subscribed.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
        || !errors.isEmpty()) {
      throw new IOException(
          (txids.size() - subscribed.getCount())
              + " of "
              + txids.size()
              + " subscribed within "
              + timeout
              + "; first errors: "
              + errors.stream().limit(5).toList());
    }
  }

  private void open(int i) {
    boolean overWs = isWebSocket(i);
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new HttpClientCodec());
                    if (overWs) {
                      ch.pipeline()
                          .addLast(new HttpObjectAggregator(1 << 16))
                          .addLast(
                              new WebSocketClientProtocolHandler(
                                  WebSocketClientHandshakerFactory.newHandshaker(
                                      ws,
                                      WebSocketVersion.V13,
                                      null,
                                      false,
                                      EmptyHttpHeaders.INSTANCE,
                                      1 << 16)))
                          .addLast(new WsSubscriber(i));
                    } else {
                      ch.pipeline().addLast(new SseSubscriber(i));
                    }
                  }
                });
    ChannelFuture f = b.connect(http.getHost(), http.getPort());
    f.addListener(
        done -> {
          if (done.isSuccess()) {
            channels.add(f.channel());
          } else {
            failed(i, "connect: " + done.cause());
          }
        });
  }

  private void failed(int i, String why) {
    errors.add("subscriber " + i + ": " + why);
    inFlight.release();
  }

  private void registered() {
    subscribed.countDown();
    inFlight.release();
  }

  /** A notification for subscriber {@code i}, received at {@code nanos}. */
  private void notified(int i, long nanos) {
    if (notifications.getAndIncrement(i) == 0) {
      firstReceipt.set(i, nanos);
    }
  }

  /** Notifications subscriber {@code i} got since it subscribed. */
  int notifications(int i) {
    return notifications.get(i);
  }

  /** {@link System#nanoTime()} of subscriber {@code i}'s first notification (0: none). */
  long firstReceipt(int i) {
    return firstReceipt.get(i);
  }

  /** Errors after subscribing (a connection that ended, an unexpected message). */
  List<String> errors() {
    return List.copyOf(errors);
  }

  /** Connections still open. */
  long open() {
    return channels.stream().filter(Channel::isActive).count();
  }

  @Override
  public void close() throws InterruptedException {
    closing = true;
    for (Channel c : channels) {
      c.close();
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }

  /** One WebSocket subscriber: {@code track-tx} and a ping in one message, then notifications. */
  private final class WsSubscriber extends ChannelInboundHandlerAdapter {
    private final int i;
    private boolean ready;

    WsSubscriber(int i) {
      this.i = i;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
        String msg = "{\"action\":\"ping\",\"track-tx\":\"" + txids.get(i).displayHex() + "\"}";
        ctx.writeAndFlush(new TextWebSocketFrame(msg));
      } else if (evt
          == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
        if (!ready) {
          ready = true; // settled: a failure, released once
          failed(i, "WebSocket handshake timed out");
        }
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      long now = System.nanoTime();
      try {
        if (!(msg instanceof TextWebSocketFrame text)) {
          return; // pings are answered by the protocol handler
        }
        JsonNode m = JSON.readTree(text.text());
        if (!ready && m.path("pong").asBoolean()) {
          ready = true;
          registered();
        } else if (ready && m.has("txConfirmed")) {
          notified(i, now);
        } else {
          errors.add("subscriber " + i + " (WebSocket): unexpected " + m);
        }
      } catch (IOException e) {
        errors.add("subscriber " + i + " (WebSocket): " + e);
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!ready) {
        ready = true;
        failed(i, "WebSocket closed before subscribing");
      } else if (!closing) {
        errors.add("subscriber " + i + " (WebSocket): closed by the server");
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      errors.add("subscriber " + i + " (WebSocket): " + cause);
      ctx.close();
    }
  }

  /** One Server-Sent Events subscriber: events split at blank lines, comments ignored. */
  private final class SseSubscriber extends ChannelInboundHandlerAdapter {
    private final int i;
    private final StringBuilder pending = new StringBuilder();
    private boolean ready;

    SseSubscriber(int i) {
      this.i = i;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      FullHttpRequest get =
          new DefaultFullHttpRequest(
              HttpVersion.HTTP_1_1,
              HttpMethod.GET,
              "/v1/tx/" + txids.get(i).displayHex() + "/events");
      get.headers()
          .set(HttpHeaderNames.HOST, http.getHost() + ":" + http.getPort())
          .set(HttpHeaderNames.ACCEPT, "text/event-stream");
      ctx.writeAndFlush(get);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      long now = System.nanoTime();
      try {
        if (msg instanceof HttpResponse r && r.status().code() != 200 && !ready) {
          ready = true;
          failed(i, "SSE answered " + r.status());
          ctx.close();
          return;
        }
        if (msg instanceof HttpContent c) {
          ByteBuf content = c.content();
          pending.append(content.toString(StandardCharsets.UTF_8));
          int end;
          while ((end = pending.indexOf("\n\n")) >= 0) {
            event(pending.substring(0, end), now);
            pending.delete(0, end + 2);
          }
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    private void event(String block, long now) {
      String kind = "";
      for (String line : block.split("\n")) {
        if (line.startsWith("event: ")) {
          kind = line.substring(7);
        }
      }
      if (kind.isEmpty()) {
        return; // a heartbeat comment
      }
      if (!ready && kind.equals("mempool")) {
        ready = true;
        registered();
      } else if (ready && kind.equals("confirmed")) {
        notified(i, now);
      } else if (!ready) {
        ready = true;
        failed(i, "first event " + kind + ", not mempool: " + block);
      } else {
        errors.add("subscriber " + i + " (SSE): unexpected " + block);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!ready) {
        ready = true;
        failed(i, "SSE stream closed before its first event");
      } else if (!closing) {
        errors.add("subscriber " + i + " (SSE): closed by the server");
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      errors.add("subscriber " + i + " (SSE): " + cause);
      ctx.close();
    }
  }
}
