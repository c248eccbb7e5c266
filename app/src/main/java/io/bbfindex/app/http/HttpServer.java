package io.bbfindex.app.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Binds and runs the Netty server on a {@link Transport} (io_uring, else epoll, else NIO, unless
 * one is named); one acceptor thread and {@link #defaultIoThreads()} I/O threads unless told;
 * graceful shutdown on {@link #close()}.
 */
public final class HttpServer implements AutoCloseable {
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final Channel channel;
  private final Transport transport;

  private HttpServer(
      EventLoopGroup boss, EventLoopGroup workers, Channel channel, Transport transport) {
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
    return start(address, initializer, Transport.AUTO, 0);
  }

  /**
   * As {@link #start(InetSocketAddress, ChannelInitializer)} on {@code transport} ({@link
   * Transport#AUTO}: the best that loads) with {@code ioThreads} event loops (0: {@link
   * #defaultIoThreads()}).
   *
   * @throws java.io.IOException also when {@code transport} was named and cannot load here
   */
  public static HttpServer start(
      InetSocketAddress address,
      ChannelInitializer<? extends Channel> initializer,
      Transport transport,
      int ioThreads)
      throws java.io.IOException {
    Transport chosen;
    try {
      chosen = transport.resolve();
    } catch (IllegalStateException e) {
      throw new java.io.IOException(e.getMessage(), e);
    }
    leakDetectionOffUnlessAsked();
    IoHandlerFactory io = chosen.ioHandlerFactory();
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
    EventLoopGroup workers =
        new MultiThreadIoEventLoopGroup(ioThreads > 0 ? ioThreads : defaultIoThreads(), io);
    try {
      Channel ch =
          new ServerBootstrap()
              .group(boss, workers)
              .channel(chosen.serverChannel())
              .option(ChannelOption.SO_BACKLOG, 1024)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(initializer)
              .bind(address)
              .sync()
              .channel();
      return new HttpServer(boss, workers, ch, chosen);
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

  /**
   * One event loop per core, not Netty's two. WHY: a loop never blocks (a lookup is a filter probe
   * or a page-cache read), so loops beyond the cores only take turns on them, and each loop that
   * wakes for few connections pays a context switch and a syscall that a busier loop shares among
   * more (with io_uring one {@code io_uring_enter} per wake-up). Measured with wrk beside the
   * server on 2 cores, io_uring, alternating rounds: 2 loops served absent txids at 1.13x the
   * requests/s of 4 at 0.66x the CPU per request; 1 loop did absent txids at 1.08x of 2 but present
   * ones (LevelDB, blk reads, hashing: about 40 us of CPU each) at only 0.76x.
   */
  public static int defaultIoThreads() {
    return Runtime.getRuntime().availableProcessors();
  }

  /**
   * Turns Netty's buffer-leak detection off unless a level was asked for ({@code
   * -Dio.netty.leakDetection.level}; the tests run {@code paranoid}). WHY: at Netty's default level
   * it wraps one buffer in 128 in a tracked one and has every message touched at every handler it
   * passes, which cost about 2 % of the server's CPU on absent txids under wrk (JFR); a leak is a
   * bug the tests catch, not something production should pay to sample.
   */
  private static void leakDetectionOffUnlessAsked() {
    if (System.getProperty("io.netty.leakDetection.level") == null
        && System.getProperty("io.netty.leakDetectionLevel") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
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

  /** The transport it runs on: never {@link Transport#AUTO}. */
  public Transport transport() {
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
