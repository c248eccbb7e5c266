package io.bbfindex.app.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.esplora.EsploraApi;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.push.PushOptions;
import io.bbfindex.app.push.SseClient;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.RoutesDocumented;
import io.bbfindex.eth.EthConfig;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.testing.AnvilNode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Issue 27's Ethereum stream against a real anvil: {@code GET /v1/eth/tx/{hash}/events} starts with
 * the current state, tells {@code confirmed} within a second of the block being mined (anvil with
 * {@code --no-mining}: the tx waits in the pool), {@code reorged} when {@code anvil_reorg} replaces
 * its block (then {@code confirmed} in the new block when it was mined again there), resumes with
 * {@code Last-Event-ID} without loss or repetition, and sends heartbeats.
 */
class EthEventsTest {
  private static final Duration HEARTBEAT = Duration.ofMillis(300);
  private static final Duration WITHIN = Duration.ofSeconds(1);
  private static final Duration SOON = Duration.ofSeconds(5);

  @TempDir Path dir;

  @Test
  void pendingConfirmedReorgedWithResumeAndHeartbeats() throws Exception {
    try (AnvilNode node = AnvilNode.start("--no-mining")) {
      node.mine(20);
      EthConfig config =
          EthConfig.of(node.url(), dir.resolve("eth"))
              .withRangeBits(4)
              .withFinalityDepth(8)
              .withPoll(Duration.ofMillis(100));
      try (Service service =
          Service.start(
              null, // Ethereum only
              EthIndex.open(config),
              new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
              HttpInitializer.DEFAULT_MAX_BODY_BYTES,
              HttpOptions.DEFAULTS,
              EsploraApi.DEFAULT_PREFIX,
              null,
              new PushOptions(HEARTBEAT, 1_000))) {
        String base = service.server().baseUrl();
        ApiClient api = new ApiClient(base);
        awaitCaughtUp(api, node.blockNumber());
        RoutesDocumented.assertSame(service, api);
        refusesBadInput(api, base);

        String absent = "0x" + "ab".repeat(32);
        try (SseClient unknown = new SseClient(events(base, absent), null)) {
          assertEquals(absent, unknown.next("unknown", SOON).data().get("hash").asText());
        }

        String hash = node.sendTransfers(1).getFirst();
        SseClient.Event confirmed;
        try (SseClient client =
            new SseClient(
                events(base, hash.toUpperCase(java.util.Locale.ROOT).replace("0X", "0x")), null)) {
          SseClient.Event first = client.next(SOON);
          if (first.kind().equals("unknown")) { // subscribed before the follower's next poll
            first = client.next("pending", SOON);
          }
          assertEquals("pending", first.kind(), first.toString());
          assertEquals(hash, first.data().get("hash").asText());

          node.mine(1);
          long mined = System.nanoTime();
          confirmed = client.next("confirmed", SOON);
          long ms = (System.nanoTime() - mined) / 1_000_000;
          assertTrue(ms <= WITHIN.toMillis(), "confirmed " + ms + " ms after mining");
          assertTrue(confirmed.id() > first.id(), confirmed + " after " + first);
          JsonNode receipt = receipt(node, hash);
          assertLocation(receipt, confirmed);
          assertEquals(1, confirmed.data().get("confirmations").asLong(), confirmed.toString());

          Thread.sleep(HEARTBEAT.multipliedBy(4).toMillis());
          assertTrue(client.comments() >= 2, client.comments() + " heartbeats");
          assertEquals(1.0, api.metric("bbf_push_subscribers", Map.of("kind", "sse_eth_tx")));
          assertTrue(client.none(Duration.ofMillis(300)), "no event while nothing changed");
        }

        // Away while its block is replaced by one that mines it again: the reconnect with the
        // last id gets exactly what it missed, not the current state again.
        String oldBlock = confirmed.data().get("blockHash").asText();
        String raw = node.call("eth_getRawTransactionByHash", hash).asString();
        node.call("anvil_reorg", 1, List.of(List.of(raw, 0)));
        String newBlock = receipt(node, hash).get("blockHash").asString();
        assertNotEquals(oldBlock, newBlock, "anvil_reorg kept the block");
        awaitBlock(api, hash, newBlock);
        try (SseClient resumed = new SseClient(events(base, hash), Long.toString(confirmed.id()))) {
          SseClient.Event reorged = resumed.next("reorged", SOON);
          assertEquals(oldBlock, reorged.data().get("blockHash").asText(), reorged.toString());
          assertEquals(
              confirmed.data().get("blockNumber").asLong(),
              reorged.data().get("blockNumber").asLong());
          SseClient.Event again = resumed.next("confirmed", SOON);
          assertTrue(
              confirmed.id() < reorged.id() && reorged.id() < again.id(), reorged + " " + again);
          assertLocation(receipt(node, hash), again);
          assertTrue(resumed.none(Duration.ofMillis(500)), "an event after the missed ones");

          // Live: a reorg that drops it (anvil forgets it) is a reorged event and nothing more.
          node.call("anvil_reorg", 1, List.of());
          SseClient.Event dropped = resumed.next("reorged", SOON);
          assertEquals(newBlock, dropped.data().get("blockHash").asText(), dropped.toString());
          assertTrue(resumed.none(Duration.ofMillis(500)), "an event after the reorg");
        }

        // An id this server never gave out: the current state, not a wrong resume.
        try (SseClient stranger = new SseClient(events(base, hash), "1")) {
          assertEquals(hash, stranger.next("unknown", SOON).data().get("hash").asText());
        }
        assertTrue(api.metric("bbf_push_notifications_total", Map.of("kind", "reorged")) >= 2);
      }
    }
  }

  private static void refusesBadInput(ApiClient api, String base) throws Exception {
    ApiClient.Answer shortHash = api.get("/v1/eth/tx/0x12/events");
    assertEquals(400, shortHash.status());
    assertEquals("malformed_hash", shortHash.json().get("error").asText());
    assertEquals(400, api.get("/v1/eth/tx/" + "ab".repeat(32) + "/events").status());
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> badId =
          http.send(
              HttpRequest.newBuilder(URI.create(events(base, "0x" + "cd".repeat(32))))
                  .header("Last-Event-ID", "yesterday")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, badId.statusCode(), badId.body());
      assertTrue(badId.body().contains("malformed_last_event_id"), badId.body());
    }
    assertEquals(405, api.post("/v1/eth/tx/0x" + "cd".repeat(32) + "/events", "[]").status());
    // HEAD as for every GET route: the stream's head, no body. A client of its own: the server
    // keeps that connection as a stream and reads no further request from it.
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> head =
          http.send(
              HttpRequest.newBuilder(URI.create(events(base, "0x" + "cd".repeat(32))))
                  .method("HEAD", HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, head.statusCode());
      assertEquals(
          "text/event-stream; charset=utf-8", head.headers().firstValue("content-type").orElse(""));
      assertEquals("", head.body());
    }
  }

  private static String events(String base, String hash) {
    return base + "/v1/eth/tx/" + hash + "/events";
  }

  private static JsonNode receipt(AnvilNode node, String hash) throws Exception {
    return node.call("eth_getTransactionReceipt", hash);
  }

  /** The event's block, as the node's receipt places the transaction. */
  private static void assertLocation(JsonNode receipt, SseClient.Event e) {
    String what = e + " vs " + receipt;
    assertEquals(
        Long.decode(receipt.get("blockNumber").asString()),
        e.data().get("blockNumber").asLong(),
        what);
    assertEquals(receipt.get("blockHash").asString(), e.data().get("blockHash").asText(), what);
    assertEquals(
        Long.decode(receipt.get("transactionIndex").asString()),
        e.data().get("transactionIndex").asLong(),
        what);
  }

  private static void awaitCaughtUp(ApiClient api, long head) throws InterruptedException {
    long deadline = System.nanoTime() + SOON.toNanos() * 6;
    while (System.nanoTime() < deadline) {
      com.fasterxml.jackson.databind.JsonNode s = api.get("/v1/eth/status").json();
      if (s.get("caughtUp").asBoolean() && s.get("servedTip").asLong() >= head) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not caught up with block " + head);
  }

  /** Waits until {@code GET /v1/eth/tx/{hash}} places it in {@code block}. */
  private static void awaitBlock(ApiClient api, String hash, String block)
      throws InterruptedException {
    long deadline = System.nanoTime() + SOON.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      last = api.get("/v1/eth/tx/" + hash).body();
      if (last.contains(block)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError(hash + " not in " + block + ": " + last);
  }
}
