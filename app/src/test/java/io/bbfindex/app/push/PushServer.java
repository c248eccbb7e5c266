package io.bbfindex.app.push;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.app.follow.FollowOptions;
import io.bbfindex.app.follow.FollowServe;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.workdir.NodeDirectories;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.regtest.RegtestNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The push tests' server: {@code serve --follow} of a regtest node in this JVM on 127.0.0.1, and
 * requests written on a raw socket where the JDK's clients would hide what is tested (a refused
 * upgrade's status, the headers of a stream).
 */
final class PushServer {
  private PushServer() {}

  /** A service following {@code node} with {@code http} and {@code push}, work files under dir. */
  static Service start(RegtestNode node, Path dir, HttpOptions http, PushOptions push)
      throws Exception {
    ChainBackend backend =
        FollowServe.open(
            NodeDirectories.resolve(node.datadir().resolve("regtest"), null),
            dir.resolve("filters"),
            dir.resolve("work"),
            0.01,
            new FollowOptions(node.rpc().endpoint().toString(), null, null, null, null, 0),
            System.err);
    Service service =
        Service.start(
            backend,
            null,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES,
            http,
            "/api",
            null,
            push);
    assertEquals(
        FollowState.FOLLOWING, FollowServe.awaitFollowing(backend, Duration.ofSeconds(30)));
    return service;
  }

  /** A socket to the server at {@code base} ({@code http://host:port}). */
  static Socket connect(String base) throws Exception {
    return connect(base, 0);
  }

  /**
   * As {@link #connect(String)}, with a receive buffer of {@code receiveBuffer} bytes (0: default).
   */
  static Socket connect(String base, int receiveBuffer) throws Exception {
    URI u = URI.create(base);
    Socket socket = new Socket();
    if (receiveBuffer > 0) {
      socket.setReceiveBufferSize(receiveBuffer); // before connecting: the window is set then
    }
    socket.connect(new InetSocketAddress(u.getHost(), u.getPort()));
    socket.setSoTimeout(10_000);
    return socket;
  }

  /** Writes the request head {@code lines} (CRLF added) to {@code socket}; reads the answer's. */
  static String exchange(Socket socket, String... lines) throws Exception {
    OutputStream out = socket.getOutputStream();
    out.write((String.join("\r\n", lines) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return head(socket.getInputStream());
  }

  /** An answer's status line and headers (up to the blank line). */
  static String head(InputStream in) throws Exception {
    StringBuilder head = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      head.append((char) c);
      if (head.length() >= 4 && head.lastIndexOf("\r\n\r\n") == head.length() - 4) {
        break;
      }
    }
    return head.toString();
  }

  /** The request lines of a WebSocket upgrade to {@code path} from a page of {@code origin}. */
  static String[] upgrade(String base, String path, String origin) {
    URI u = URI.create(base);
    return new String[] {
      "GET " + path + " HTTP/1.1",
      "Host: " + u.getHost() + ":" + u.getPort(),
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      "Origin: " + origin
    };
  }

  /** The request lines of an SSE stream of {@code path} from a page of {@code origin}. */
  static String[] stream(String base, String path, String origin) {
    URI u = URI.create(base);
    return new String[] {
      "GET " + path + " HTTP/1.1",
      "Host: " + u.getHost() + ":" + u.getPort(),
      "Accept: text/event-stream",
      "Origin: " + origin
    };
  }

  /** The status line of an answer head. */
  static String status(String head) {
    int end = head.indexOf("\r\n");
    return end < 0 ? head : head.substring(0, end);
  }
}
