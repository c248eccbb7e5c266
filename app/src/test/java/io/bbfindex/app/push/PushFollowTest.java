package io.bbfindex.app.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.RoutesDocumented;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27 against a real regtest node: Server-Sent Events and the WebSocket (mempool.space's
 * dialect) tell a client when its tx is confirmed (within 1 s of mining), replaced by {@code
 * bumpfee} or by a full-RBF double spend that never signalled (the replacement named), and
 * unconfirmed by {@code invalidateblock}; a reconnect with {@code Last-Event-ID} misses nothing;
 * bad input gets an error or a close, never a 5xx or a dead server.
 */
class PushFollowTest {
  /** The acceptance bound: from the mining call to the client's receipt. */
  private static final Duration WITHIN = Duration.ofSeconds(1);

  /** For answers without a latency bound, on a machine other builds share. */
  private static final Duration SOON = Duration.ofSeconds(5);

  private static final Duration REORG_WITHIN = Duration.ofSeconds(10);
  private static final Duration HEARTBEAT = Duration.ofMillis(300);
  private static final String ALLOWED_ORIGIN = "https://wallet.example";

  @TempDir Path tmp;

  private Service start(RegtestNode node, int maxTracked) throws Exception {
    return PushServer.start(
        node,
        tmp,
        HttpOptions.DEFAULTS.withCorsOrigins(List.of(ALLOWED_ORIGIN)),
        new PushOptions(HEARTBEAT, maxTracked));
  }

  @Test
  void clientsHearConfirmationReplacementAndReorgAndResumeWithoutLoss() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(110);
      try (Service service = start(node, 1_000)) {
        String base = service.server().baseUrl();
        ApiClient api = new ApiClient(base);
        RoutesDocumented.assertSame(service, api);
        String ws = base.replace("http://", "ws://") + "/api/v1/ws";

        // --- confirmation: SSE and WebSocket within 1 s of the mining call
        Hash32 paid = node.send("bech32", 1.0);
        awaitMempool(api, paid);
        try (SseClient sse = new SseClient(base + "/v1/tx/" + paid.displayHex() + "/events", null);
            SseClient blocks = new SseClient(base + "/v1/blocks/events", null);
            WsClient client = new WsClient(ws)) {
          SseClient.Event first = sse.next("mempool", SOON);
          assertEquals(paid.displayHex(), first.data().path("txid").asText());
          client.send("{\"action\":\"want\",\"data\":[\"blocks\"]}");
          JsonNode recent = client.await("blocks", REORG_WITHIN).get("blocks");
          assertEquals(8, recent.size(), "the last 8 blocks");
          assertEquals(node.bestBlock().displayHex(), recent.get(0).path("id").asText());
          client.send("{\"track-tx\":\"" + paid.displayHex() + "\"}");
          client.send("{\"track-txs\":[\"" + paid.displayHex() + "\"]}");
          JsonNode tracked = client.await("tracked-txs", REORG_WITHIN).get("tracked-txs");
          assertFalse(tracked.path(paid.displayHex()).path("confirmed").asBoolean(true));

          long mining = System.nanoTime();
          Hash32 block = node.mine(1).get(0);
          int height = node.rpc().call("getblockcount").asInt();
          SseClient.Event confirmed = sse.next("confirmed", WITHIN);
          JsonNode txConfirmed = client.await("txConfirmed", WITHIN);
          double ms = (System.nanoTime() - mining) / 1e6;
          System.out.printf(
              "mining call to SSE confirmed and WebSocket txConfirmed: %.1f ms%n", ms);
          assertTrue(ms < WITHIN.toMillis(), ms + " ms");
          assertEquals(block.displayHex(), confirmed.data().path("blockHash").asText());
          assertEquals(height, confirmed.data().path("height").asInt());
          assertEquals(1, confirmed.data().path("confirmations").asInt());
          assertEquals(paid.displayHex(), txConfirmed.get("txConfirmed").asText());
          JsonNode blockMessage = client.await("block", WITHIN).get("block");
          assertEquals(block.displayHex(), blockMessage.path("id").asText());
          assertEquals(height, blockMessage.path("height").asInt());
          // one message for both trackings, as mempool.space writes it
          assertTrue(
              txConfirmed.path("tracked-txs").path(paid.displayHex()).path("confirmed").asBoolean(),
              txConfirmed.toString());
          SseClient.Event connected = blocks.next("connected", WITHIN);
          assertEquals(block.displayHex(), connected.data().path("blockHash").asText());

          // --- a reorg takes the block: unconfirmed (SSE), txUnconfirmed (WebSocket extension)
          node.rpc().call("invalidateblock", block.displayHex());
          SseClient.Event unconfirmed = sse.next("unconfirmed", REORG_WITHIN);
          assertEquals(block.displayHex(), unconfirmed.data().path("blockHash").asText());
          assertEquals(
              paid.displayHex(),
              client.await("txUnconfirmed", REORG_WITHIN).get("txUnconfirmed").asText());
          assertEquals("disconnected", blocks.next(REORG_WITHIN).kind());
          sse.next("mempool", REORG_WITHIN); // back in the mempool
          node.rpc().call("reconsiderblock", block.displayHex());
          sse.next("confirmed", REORG_WITHIN);
          // a quiet stream gets a heartbeat comment within its period (the events above may all
          // have come sooner than one period)
          long quietUntil = System.nanoTime() + HEARTBEAT.multipliedBy(10).toNanos();
          while (sse.comments() == 0 && System.nanoTime() < quietUntil) {
            Thread.sleep(20);
          }
          assertTrue(sse.comments() > 0, "heartbeats arrive");
        }

        // --- replacement by bumpfee, named exactly
        Hash32 bumpMe = node.send("bech32", 1.0);
        awaitMempool(api, bumpMe);
        try (SseClient sse =
                new SseClient(base + "/v1/tx/" + bumpMe.displayHex() + "/events", null);
            WsClient client = new WsClient(ws)) {
          sse.next("mempool", SOON);
          client.send("{\"track-tx\":\"" + bumpMe.displayHex() + "\"}");
          Thread.sleep(200); // the tracking message is read before the replacement
          Hash32 bumped =
              Hash32.ofDisplayHex(
                  node.wallet().call("bumpfee", bumpMe.displayHex()).path("txid").asText());
          assertEquals(bumped.displayHex(), sse.next("replaced", SOON).data().path("by").asText());
          assertEquals(
              bumped.displayHex(),
              client.await("txReplaced", SOON).path("txReplaced").path("txid").asText());
        }

        // --- full RBF: a double spend of a tx that never signalled
        node.mine(1);
        Hash32 quiet = node.sendUnsignalled(2.0);
        awaitMempool(api, quiet);
        try (SseClient sse =
                new SseClient(base + "/v1/tx/" + quiet.displayHex() + "/events", null);
            WsClient client = new WsClient(ws)) {
          sse.next("mempool", SOON);
          client.send("{\"track-txs\":[\"" + quiet.displayHex() + "\"]}");
          client.await("tracked-txs", SOON);
          Hash32 doubleSpend = node.doubleSpend(quiet);
          assertEquals(
              doubleSpend.displayHex(), sse.next("replaced", SOON).data().path("by").asText());
          JsonNode replaced =
              client
                  .await(
                      m -> m.path("tracked-txs").path(quiet.displayHex()).has("replacedBy"),
                      "tracked-txs replacedBy",
                      SOON)
                  .get("tracked-txs");
          assertEquals(
              doubleSpend.displayHex(),
              replaced.path(quiet.displayHex()).path("replacedBy").asText());
        }

        // --- Last-Event-ID: clients away for two blocks (one confirming their tx) miss nothing
        long blocksSeen;
        try (SseClient blocks = new SseClient(base + "/v1/blocks/events", null)) {
          Hash32 a = node.mine(1).get(0);
          SseClient.Event seen = blocks.next("connected", SOON);
          assertEquals(a.displayHex(), seen.data().path("blockHash").asText());
          blocksSeen = seen.id();
        }
        Hash32 later = node.send("bech32", 0.5);
        awaitMempool(api, later);
        String laterEvents = base + "/v1/tx/" + later.displayHex() + "/events";
        long txSeen;
        try (SseClient sse = new SseClient(laterEvents, null)) {
          txSeen = sse.next("mempool", SOON).id();
        }
        List<Hash32> away = node.mine(2);
        awaitTip(api, away.get(1)); // the follower applies them while nobody listens
        try (SseClient blocks =
                new SseClient(base + "/v1/blocks/events", Long.toString(blocksSeen));
            SseClient sse = new SseClient(laterEvents, Long.toString(txSeen));
            SseClient fresh = new SseClient(laterEvents, "5")) {
          for (Hash32 h : away) {
            SseClient.Event e = blocks.next("connected", SOON);
            assertEquals(h.displayHex(), e.data().path("blockHash").asText());
            assertTrue(e.id() > blocksSeen);
          }
          SseClient.Event missed = sse.next("confirmed", SOON);
          assertEquals(away.get(0).displayHex(), missed.data().path("blockHash").asText());
          assertEquals(1, missed.data().path("confirmations").asInt(), "the event as it was sent");
          assertTrue(sse.none(Duration.ofMillis(300)), "each missed event once");
          // an id this server never gave out: the current state instead
          SseClient.Event now = fresh.next("confirmed", SOON);
          assertEquals(2, now.data().path("confirmations").asInt());
        }

        String metrics = api.get("/metrics").body();
        assertTrue(metrics.contains("bbf_push_notifications_total{kind=\"confirmed\"}"), metrics);
        assertTrue(metrics.contains("bbf_push_notify_latency_seconds_count"), metrics);
        assertTrue(metrics.contains("bbf_push_subscribers{kind=\"websocket\"}"), metrics);
      }
    }
  }

  @Test
  void wantBlocksGetsEveryConnectedBlockOnceAndInOrderAcrossAReorg() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(110);
      try (Service service = start(node, 1_000)) {
        String base = service.server().baseUrl();
        ApiClient api = new ApiClient(base);
        awaitTip(api, node.bestBlock());
        try (WsClient client = new WsClient(base.replace("http://", "ws://") + "/api/v1/ws")) {
          client.send("{\"action\":\"want\",\"data\":[\"blocks\"]}");
          client.await("blocks", REORG_WITHIN);
          List<Hash32> first = node.mine(3); // heights 111-113
          List<String> expected = new ArrayList<>();
          for (int i = 0; i < 3; i++) {
            expected.add((111 + i) + " " + first.get(i).displayHex());
          }
          List<String> got = new ArrayList<>();
          for (int i = 0; i < 3; i++) {
            got.add(blockOf(client.await("block", REORG_WITHIN)));
          }
          // a reorg of two blocks: 112 and 113 are replaced by a longer branch 112'-114'
          node.rpc().call("invalidateblock", first.get(1).displayHex());
          List<Hash32> second = node.mine(3);
          for (int i = 0; i < 3; i++) {
            expected.add((112 + i) + " " + second.get(i).displayHex());
            got.add(blockOf(client.await("block", REORG_WITHIN)));
          }
          assertEquals(expected, got, "every connected block once, in the order connected");
          // nothing more: no block sent twice, none of the abandoned branch again
          Thread.sleep(1_000);
          node.mine(1);
          String next = blockOf(client.await("block", REORG_WITHIN));
          assertEquals("115 " + node.bestBlock().displayHex(), next);
        }
      }
    }
  }

  /** "HEIGHT HASH" of a {@code block} message. */
  private static String blockOf(JsonNode message) {
    JsonNode b = message.get("block");
    return b.path("height").asInt() + " " + b.path("id").asText();
  }

  @Test
  void badInputGetsAnErrorOrACloseNeverA5xxNorADeadServer() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(101);
      try (Service service = start(node, 5)) {
        String base = service.server().baseUrl();
        ApiClient api = new ApiClient(base);
        String ws = base.replace("http://", "ws://") + "/api/v1/ws";
        String txid = node.send("bech32", 0.1).displayHex();

        assertEquals(400, api.get("/v1/tx/xyz/events").status());
        assertEquals("malformed_txid", api.get("/v1/tx/xyz/events").json().path("error").asText());
        assertEquals(426, api.get("/api/v1/ws").status(), "not an upgrade");
        assertEquals(
            "HTTP/1.1 403 Forbidden", upgradeStatus(base, "https://evil.example"), "foreign page");
        assertEquals(
            "HTTP/1.1 101 Switching Protocols", upgradeStatus(base, ALLOWED_ORIGIN), "listed page");

        try (WsClient client = new WsClient(ws)) {
          client.send("this is not json");
          assertTrue(client.await("error", SOON).get("error").asText().contains("not JSON"));
          client.send("[1,2]");
          client.await("error", SOON);
          client.send("{\"track-tx\":\"xyz\"}");
          client.await("track-tx-error", SOON);
          String six =
              "[" + String.join(",", java.util.Collections.nCopies(6, "\"" + txid + "\"")) + "]";
          client.send("{\"track-txs\":" + six + "}");
          assertTrue(
              client.await("track-txs-error", SOON).get("track-txs-error").asText().contains("5"));
          client.send("{\"track-txs\":[\"" + txid + "\", 7]}");
          client.await("track-txs-error", SOON);
          client.send("{\"action\":\"ping\"}");
          assertTrue(client.await("pong", SOON).get("pong").asBoolean(), "still up");
          client.send("{\"padding\":\"" + "x".repeat(1 << 20) + "\"}");
          assertEquals(1009, client.closeCode(Duration.ofSeconds(5)), "1 MB message");
        }
        try (WsClient client = new WsClient(ws)) {
          for (int i = 0; i <= 100; i++) {
            client.send("{\"action\":\"ping\"}");
          }
          assertEquals(1008, client.closeCode(Duration.ofSeconds(5)), "a flood is cut");
        }
        try (WsClient client = new WsClient(ws)) {
          client.sendBinary(new byte[] {1, 2, 3});
          assertEquals(1003, client.closeCode(Duration.ofSeconds(5)), "binary frame");
        }
        assertSlowConsumerIsClosed(service, base);
        assertEquals(200, api.get("/v1/status").status(), "the server is alive");
        assertFalse(
            api.get("/metrics")
                .body()
                .contains("bbf_http_server_errors_total{route=\"websocket\"} 1"));
      }
    }
  }

  /**
   * A client that subscribes and never reads is closed once its connection's outbound buffer is
   * full, and counted: the events are published into the follower's own sink (as the follower
   * does), 50,000 blocks' worth, far past the 64 KiB buffer and the kernel's.
   */
  private static void assertSlowConsumerIsClosed(Service service, String base) throws Exception {
    java.net.URI u = java.net.URI.create(base);
    try (Socket socket = new Socket()) {
      socket.setReceiveBufferSize(1024);
      socket.connect(new InetSocketAddress(u.getHost(), u.getPort()));
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET /v1/blocks/events HTTP/1.1\r\nHost: " + u.getHost() + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Thread.sleep(300); // subscribed
      io.bbfindex.follow.events.FollowEvents events =
          ((io.bbfindex.app.follow.FollowingBackend) service.backend()).events();
      for (int i = 0; i < 50_000; i++) {
        events.publish(
            new io.bbfindex.follow.events.ChainEvent.BlockConnected(
                Hash32.ofDisplayHex(String.format("%064x", i + 1)), 1_000_000 + i, List.of()));
      }
      ApiClient api = new ApiClient(base);
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!api.get("/metrics").body().contains("bbf_push_slow_consumers_closed_total 1.0")) {
        assertTrue(
            System.nanoTime() < deadline,
            "the non-reading client was not closed: "
                + api.get("/metrics")
                    .body()
                    .lines()
                    .filter(l -> l.startsWith("bbf_push"))
                    .toList());
        Thread.sleep(50);
      }
      // what the kernel buffered is still readable, then the stream ends
      socket.setSoTimeout(10_000);
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[65_536];
      while (in.read(buffer) >= 0) {
        // drain
      }
    }
  }

  /** The status line of a WebSocket upgrade from a page of {@code origin}. */
  private static String upgradeStatus(String base, String origin) throws Exception {
    try (Socket socket = PushServer.connect(base)) {
      return PushServer.status(
          PushServer.exchange(socket, PushServer.upgrade(base, "/api/v1/ws", origin)));
    }
  }

  private static void awaitTip(ApiClient api, Hash32 block) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (api.get("/v1/block/" + block.displayHex()).status() != 200) {
      assertTrue(System.nanoTime() < deadline, block + " not served within 10 s");
      Thread.sleep(20);
    }
  }

  static void awaitMempool(ApiClient api, Hash32 txid) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (api.get("/v1/tx/" + txid.displayHex()).body().contains("mempool")) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError(txid + " not in the served mempool within 10 s");
  }
}
