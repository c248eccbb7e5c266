package io.bbfindex.app.http;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The socket I/O under the server's event loops ({@code serve --transport}). {@link #AUTO} takes
 * the first that loads here, in this order: io_uring (Linux 5.14+, not disabled by {@code
 * kernel.io_uring_disabled}), epoll (Linux), NIO (anywhere).
 *
 * <p>WHY io_uring first: under wrk a keep-alive request cost the epoll server three syscalls
 * ({@code epoll_wait}, {@code read}, {@code write}), together more CPU than the lookup itself;
 * io_uring queues a loop iteration's reads and writes for every connection and hands them to the
 * kernel in one {@code io_uring_enter}.
 */
public enum Transport {
  AUTO,
  IO_URING,
  EPOLL,
  NIO;

  /** The name {@code --transport} takes and the {@code listening} line prints. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The transport {@code label} names.
   *
   * @throws IllegalArgumentException listing the names, for an unknown one
   */
  public static Transport parse(String label) {
    for (Transport t : values()) {
      if (t.label().equals(label)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "unknown transport '"
            + label
            + "': one of "
            + Arrays.stream(values()).map(Transport::label).collect(Collectors.joining(", ")));
  }

  /**
   * This transport if it is concrete and loads here, else (for {@link #AUTO}) the first that does.
   *
   * @throws IllegalStateException for a transport that was asked for by name and cannot load, with
   *     Netty's reason
   */
  public Transport resolve() {
    if (this == AUTO) {
      return IO_URING.available() ? IO_URING : EPOLL.available() ? EPOLL : NIO;
    }
    if (!available()) {
      throw new IllegalStateException(
          "transport " + label() + " is not available here: " + unavailabilityCause());
    }
    return this;
  }

  /** Whether this concrete transport loads on this machine ({@link #AUTO}: always). */
  public boolean available() {
    return switch (this) {
      case AUTO, NIO -> true;
      case IO_URING -> IoUring.isAvailable();
      case EPOLL -> Epoll.isAvailable();
    };
  }

  private String unavailabilityCause() {
    Throwable cause =
        switch (this) {
          case IO_URING -> IoUring.unavailabilityCause();
          case EPOLL -> Epoll.unavailabilityCause();
          case AUTO, NIO -> null;
        };
    return cause == null ? "unknown" : String.valueOf(cause.getMessage());
  }

  IoHandlerFactory ioHandlerFactory() {
    return switch (concrete()) {
      case IO_URING -> IoUringIoHandler.newFactory();
      case EPOLL -> EpollIoHandler.newFactory();
      default -> NioIoHandler.newFactory();
    };
  }

  Class<? extends ServerChannel> serverChannel() {
    return switch (concrete()) {
      case IO_URING -> IoUringServerSocketChannel.class;
      case EPOLL -> EpollServerSocketChannel.class;
      default -> NioServerSocketChannel.class;
    };
  }

  private Transport concrete() {
    if (this == AUTO) {
      throw new IllegalStateException("resolve() AUTO to a concrete transport first");
    }
    return this;
  }
}
