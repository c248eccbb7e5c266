package io.bbfindex.app.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Binds and runs the Netty server: native epoll when it loads (Linux x86-64), NIO otherwise; one
 * acceptor thread and Netty's default number of I/O threads; graceful shutdown on {@link #close()}.
 */
public final class HttpServer implements AutoCloseable {
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final Channel channel;
  private final String transport;

  private HttpServer(
      EventLoopGroup boss, EventLoopGroup workers, Channel channel, String transport) {
    this.boss = boss;
    this.workers = workers;
    this.channel = channel;
    this.transport = transport;
  }

  /**
   * Binds {@code address} (port 0 picks a free port) and starts accepting connections; when this
   * returns the socket is listening.
   *
   * @throws java.io.IOException wrapped bind failures (e.g. port in use), naming the address
   */
  public static HttpServer start(
      InetSocketAddress address, ChannelInitializer<? extends Channel> initializer)
      throws java.io.IOException {
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends ServerChannel> channelType =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
    EventLoopGroup workers = new MultiThreadIoEventLoopGroup(io);
    try {
      Channel ch =
          new ServerBootstrap()
              .group(boss, workers)
              .channel(channelType)
              .option(ChannelOption.SO_BACKLOG, 1024)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(initializer)
              .bind(address)
              .sync()
              .channel();
      return new HttpServer(boss, workers, ch, epoll ? "epoll" : "nio");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      shutdown(boss, workers);
      throw new java.io.InterruptedIOException("interrupted while binding " + address);
    } catch (Exception e) {
      shutdown(boss, workers);
      throw new java.io.IOException(
          "cannot listen on "
              + address.getHostString()
              + ":"
              + address.getPort()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The bound address (with the real port when 0 was asked for). */
  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  /** The I/O event loops that serve connections (for pending-task and worker metrics). */
  public Iterable<EventExecutor> eventLoops() {
    return workers;
  }

  /** {@code epoll} or {@code nio}. */
  public String transport() {
    return transport;
  }

  /** {@code http://HOST:PORT}, with IPv6 hosts in brackets. */
  public String baseUrl() {
    InetSocketAddress a = address();
    String host = a.getAddress().getHostAddress();
    if (host.indexOf(':') >= 0) {
      host = "[" + host + "]";
    }
    return "http://" + host + ":" + a.getPort();
  }

  /** Blocks until the server channel closes (after {@link #close()} from another thread). */
  public void awaitClose() throws InterruptedException {
    channel.closeFuture().await();
  }

  /** Stops accepting, lets in-flight requests finish (short quiet period) and frees the threads. */
  @Override
  public void close() {
    channel.close().awaitUninterruptibly();
    shutdown(boss, workers);
  }

  private static void shutdown(EventLoopGroup boss, EventLoopGroup workers) {
    boss.shutdownGracefully(0, 2_000, TimeUnit.MILLISECONDS);
    workers.shutdownGracefully(100, 5_000, TimeUnit.MILLISECONDS).awaitUninterruptibly();
    boss.terminationFuture().awaitUninterruptibly();
  }
}
