package io.bbfindex.app.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.follow.FollowingBackend;
import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.follow.events.ChainEvent;
import io.bbfindex.follow.events.FollowEvents;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27's scale and abuse points against a real server following a real regtest node: a
 * WebSocket client that stops reading is closed (1008, counted) with the server's heap and direct
 * memory back where they were; 100,000 tracked ids in one message are closed (1009) and 1,001 in a
 * message that fits get an error on a connection that stays up; and the server's guards apply to
 * WebSocket upgrades and SSE streams as to any request: {@code --max-connections} (503), CORS
 * ({@code Access-Control-Allow-Origin} for listed pages only) and {@code --rate-limit} (429).
 */
class PushAbuseTest {
  private static final String ALLOWED_ORIGIN = "https://wallet.example";
  private static final String FOREIGN_ORIGIN = "https://evil.example";
  private static final Duration SOON = Duration.ofSeconds(5);
  private static final HttpOptions CORS =
      HttpOptions.DEFAULTS.withCorsOrigins(List.of(ALLOWED_ORIGIN));

  /** Events published at a non-reading client: far more than any bounded buffer holds. */
  private static final int FLOOD = 300_000;

  @TempDir Path tmp;

  @Test
  void aClientThatDoesNotReadIsClosedAndNothingStaysBuffered() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(101);
      try (Service service = PushServer.start(node, tmp, CORS, PushOptions.DEFAULTS)) {
        String base = service.server().baseUrl();
        ApiClient api = new ApiClient(base);
        Hash32 txid = node.send("bech32", 0.1);
        MemorySample before = MemorySample.of(api);
        try (Socket socket = PushServer.connect(base, 1024)) {
          String head =
              PushServer.exchange(socket, PushServer.upgrade(base, "/api/v1/ws", ALLOWED_ORIGIN));
          assertEquals("HTTP/1.1 101 Switching Protocols", PushServer.status(head));
          sendText(socket, "{\"action\":\"ping\",\"track-tx\":\"" + txid.displayHex() + "\"}");
          Thread.sleep(300); // tracked (the pong waits unread with what follows)
          // Each block "confirming" the tracked tx is a txConfirmed message for the client: the
          // events are published into the follower's own sink, as the follower does.
          FollowEvents events = ((FollowingBackend) service.backend()).events();
          for (int i = 0; i < FLOOD; i++) {
            events.publish(
                new ChainEvent.BlockConnected(
                    Hash32.ofDisplayHex(String.format(Locale.ROOT, "%064x", i + 1)),
                    1_000_000 + i,
                    List.of(txid)));
          }
          awaitMetric(api, "bbf_push_slow_consumers_closed_total 1.0", Duration.ofSeconds(30));
          // a client that reads again gets what was queued, then the reason it was closed
          List<Integer> closeCodes = new ArrayList<>();
          int texts = readFrames(socket, closeCodes);
          System.out.printf(
              "non-reading client: %,d of %,d messages reached it before the close%n",
              texts, FLOOD);
          assertEquals(List.of(1008), closeCodes, "one close frame, policy violation");
          // the kernel's socket buffers hold up to a few MB (some 45,000 messages); the rest of the
          // flood (27 MB) must have been refused, not queued
          assertTrue(texts < FLOOD / 3, texts + " messages: the queue was not bounded");
        }
        awaitMetric(api, "bbf_push_subscribers{kind=\"websocket\"} 0.0", SOON);
        MemorySample after = MemorySample.of(api);
        System.out.printf("server memory before %s, after %s%n", before, after);
        // the 16,384 events the reconnect ring keeps are the only growth allowed for
        assertTrue(
            after.heapBytes() - before.heapBytes() < 32 << 20,
            "heap grew from " + before + " to " + after);
        assertTrue(
            after.nettyDirectBytes() - before.nettyDirectBytes() < 8 << 20,
            "Netty's direct memory grew from " + before + " to " + after);
        assertEquals(200, api.get("/v1/status").status(), "the server is alive");
      }
    }
  }

  @Test
  void trackingTooManyIdsIsRefusedAndTheConnectionOrServerLives() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(101);
      try (Service service =
          PushServer.start(node, tmp, HttpOptions.DEFAULTS, PushOptions.DEFAULTS)) {
        String base = service.server().baseUrl();
        String ws = base.replace("http://", "ws://") + "/api/v1/ws";
        String txid = node.send("bech32", 0.1).displayHex();
        try (WsClient client = new WsClient(ws)) {
          client.send("{\"track-txs\":" + ids(txid, 1_001) + "}");
          assertTrue(
              client
                  .await("track-txs-error", SOON)
                  .get("track-txs-error")
                  .asText()
                  .contains("maximum of 1000"));
          client.send("{\"action\":\"ping\"}");
          assertTrue(client.await("pong", SOON).get("pong").asBoolean(), "still up");
          try {
            client.send("{\"track-txs\":" + ids(txid, 100_000) + "}");
          } catch (java.util.concurrent.ExecutionException e) {
            // the server closed the connection before all 6.7 MB were written
          }
          assertEquals(1009, client.closeCode(Duration.ofSeconds(10)), "100,000 ids, 6.7 MB");
        }
        try (WsClient client = new WsClient(ws)) {
          client.send("{\"action\":\"ping\"}");
          assertTrue(client.await("pong", SOON).get("pong").asBoolean(), "the server lives");
        }
        String metrics = new ApiClient(base).get("/metrics").body();
        assertFalse(
            metrics
                .lines()
                .anyMatch(
                    l -> l.startsWith("bbf_http_server_errors_total{") && !l.endsWith(" 0.0")),
            "no 5xx");
      }
    }
  }

  @Test
  void corsConnectionCapAndRateLimitApplyToUpgradesAndStreams() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(101);
      String tx = "/v1/tx/" + node.send("bech32", 0.1).displayHex() + "/events";
      // CORS: an allowed page may read the stream, a foreign page gets it without the header (and
      // the browser hides it); a foreign page may not open the WebSocket at all
      HttpOptions cors = HttpOptions.DEFAULTS.withCorsOrigins(List.of(ALLOWED_ORIGIN));
      try (Service service =
          PushServer.start(node, tmp.resolve("cors"), cors, PushOptions.DEFAULTS)) {
        String base = service.server().baseUrl();
        String allowed = answer(base, PushServer.stream(base, tx, ALLOWED_ORIGIN));
        assertEquals("HTTP/1.1 200 OK", PushServer.status(allowed));
        assertTrue(
            allowed
                .toLowerCase(Locale.ROOT)
                .contains("access-control-allow-origin: " + ALLOWED_ORIGIN),
            allowed);
        String foreign = answer(base, PushServer.stream(base, tx, FOREIGN_ORIGIN));
        assertEquals("HTTP/1.1 200 OK", PushServer.status(foreign));
        assertFalse(
            foreign.toLowerCase(Locale.ROOT).contains("access-control-allow-origin"), foreign);
        assertEquals(
            "HTTP/1.1 101 Switching Protocols",
            PushServer.status(
                answer(base, PushServer.upgrade(base, "/api/v1/ws", ALLOWED_ORIGIN))));
        assertEquals(
            "HTTP/1.1 403 Forbidden",
            PushServer.status(
                answer(base, PushServer.upgrade(base, "/api/v1/ws", FOREIGN_ORIGIN))));
      }

      // --max-connections 2: an open stream and an open WebSocket fill it; a third of either kind
      // is refused (503) while they stay open, and admitted once one closes
      HttpOptions cap = CORS.withMaxConnections(2);
      try (Service service =
          PushServer.start(node, tmp.resolve("cap"), cap, PushOptions.DEFAULTS)) {
        String base = service.server().baseUrl();
        Socket stream = PushServer.connect(base);
        Socket socket = PushServer.connect(base);
        try {
          assertEquals(
              "HTTP/1.1 200 OK",
              PushServer.status(
                  PushServer.exchange(stream, PushServer.stream(base, tx, ALLOWED_ORIGIN))));
          assertEquals(
              "HTTP/1.1 101 Switching Protocols",
              PushServer.status(
                  PushServer.exchange(
                      socket, PushServer.upgrade(base, "/api/v1/ws", ALLOWED_ORIGIN))));
          assertEquals(
              "HTTP/1.1 503 Service Unavailable",
              PushServer.status(answer(base, PushServer.stream(base, tx, ALLOWED_ORIGIN))));
          assertEquals(
              "HTTP/1.1 503 Service Unavailable",
              PushServer.status(
                  answer(base, PushServer.upgrade(base, "/api/v1/ws", ALLOWED_ORIGIN))));
        } finally {
          stream.close();
          socket.close();
        }
        long deadline = System.nanoTime() + SOON.toNanos();
        String again;
        while (!PushServer.status(
                    again = answer(base, PushServer.upgrade(base, "/api/v1/ws", ALLOWED_ORIGIN)))
                .equals("HTTP/1.1 101 Switching Protocols")
            && System.nanoTime() < deadline) {
          Thread.sleep(50); // the closed connections are counted out on their event loop
        }
        assertEquals("HTTP/1.1 101 Switching Protocols", PushServer.status(again));
      }

      // --rate-limit 1 --rate-burst 1: within a second, the second stream or upgrade of a client
      // is 429 like any request over its rate
      HttpOptions rate = CORS.withRateLimit(1, 1);
      try (Service service =
          PushServer.start(node, tmp.resolve("rate"), rate, PushOptions.DEFAULTS)) {
        String base = service.server().baseUrl();
        assertTrue(
            tooManyWithin(base, PushServer.stream(base, tx, ALLOWED_ORIGIN)), "SSE rate limited");
        assertTrue(
            tooManyWithin(base, PushServer.upgrade(base, "/api/v1/ws", ALLOWED_ORIGIN)),
            "WebSocket upgrade rate limited");
      }
    }
  }

  /** Whether one of 20 requests in a row is answered 429 (the bucket refills one a second). */
  private static boolean tooManyWithin(String base, String[] request) throws Exception {
    for (int i = 0; i < 20; i++) {
      String head = answer(base, request);
      if (PushServer.status(head).equals("HTTP/1.1 429 Too Many Requests")) {
        assertTrue(head.toLowerCase(Locale.ROOT).contains("retry-after:"), head);
        return true;
      }
    }
    return false;
  }

  /** The answer head to {@code request} on a new connection, which is then closed. */
  private static String answer(String base, String[] request) throws Exception {
    try (Socket socket = PushServer.connect(base)) {
      return PushServer.exchange(socket, request);
    }
  }

  private static String ids(String txid, int n) {
    return "[" + String.join(",", Collections.nCopies(n, "\"" + txid + "\"")) + "]";
  }

  /** A masked text frame, as a client must send it (RFC 6455 5.3). */
  private static void sendText(Socket socket, String text) throws Exception {
    byte[] payload = text.getBytes(StandardCharsets.UTF_8);
    assertTrue(payload.length < 126, "a short frame");
    byte[] mask = {0x12, 0x34, 0x56, 0x78};
    byte[] frame = new byte[2 + 4 + payload.length];
    frame[0] = (byte) 0x81; // FIN, text
    frame[1] = (byte) (0x80 | payload.length);
    System.arraycopy(mask, 0, frame, 2, 4);
    for (int i = 0; i < payload.length; i++) {
      frame[6 + i] = (byte) (payload[i] ^ mask[i % 4]);
    }
    OutputStream out = socket.getOutputStream();
    out.write(frame);
    out.flush();
  }

  /**
   * Reads the server's frames (unmasked) until the connection ends; the text frames counted, the
   * close frames' codes added to {@code closeCodes}.
   */
  private static int readFrames(Socket socket, List<Integer> closeCodes) throws Exception {
    DataInputStream in = new DataInputStream(socket.getInputStream());
    int texts = 0;
    try {
      while (true) {
        int opcode = in.readUnsignedByte() & 0x0f;
        long length = in.readUnsignedByte() & 0x7f;
        if (length == 126) {
          length = in.readUnsignedShort();
        } else if (length == 127) {
          length = in.readLong();
        }
        byte[] payload = new byte[Math.toIntExact(length)];
        in.readFully(payload);
        if (opcode == 0x1) {
          texts++;
        } else if (opcode == 0x8) {
          closeCodes.add(((payload[0] & 0xff) << 8) | (payload[1] & 0xff));
        }
      }
    } catch (EOFException e) {
      return texts; // the server closed the connection
    }
  }

  private static void awaitMetric(ApiClient api, String line, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!api.get("/metrics").body().lines().anyMatch(line::equals)) {
      assertTrue(
          System.nanoTime() < deadline,
          "no '"
              + line
              + "' within "
              + timeout
              + ": "
              + api.get("/metrics").body().lines().filter(l -> l.startsWith("bbf_push")).toList());
      Thread.sleep(50);
    }
  }

  /** The heap in use after a full GC (this JVM is the server's) and Netty's direct memory. */
  private record MemorySample(long heapBytes, double nettyDirectBytes) {
    static MemorySample of(ApiClient api) {
      System.gc();
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      double direct =
          api.get("/metrics")
              .body()
              .lines()
              .filter(
                  l ->
                      l.startsWith("netty_allocator_memory_used{")
                          && l.contains("memory_type=\"direct\""))
              .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
              .sum();
      return new MemorySample(heap, direct);
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "heap %.1f MiB, Netty direct %.1f MiB",
          heapBytes / 1048576.0,
          nettyDirectBytes / 1048576.0);
    }
  }
}
