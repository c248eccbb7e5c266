package io.bbfindex.app.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.follow.FollowedServer;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SSE {@code stale} event against a real regtest node that is stopped and started again: a tx's
 * subscribers hear that the server lost its node (its answers may be old), a client that subscribes
 * meanwhile hears it after the state, and once the follower follows again each gets the tx's
 * current state, then its changes as before.
 */
class StaleFollowerTest {
  /** The follower notices a dead node at its next health check (a poll interval), then retries. */
  private static final Duration NOTICED_WITHIN = Duration.ofSeconds(15);

  private static final Duration RECOVERED_WITHIN = Duration.ofSeconds(60);
  private static final Duration SOON = Duration.ofSeconds(5);

  @TempDir Path tmp;

  @Test
  void subscribersHearTheNodeLostAndTheStateAgainWhenItIsBack() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(110);
      try (FollowedServer server = FollowedServer.start(node, tmp)) {
        String base = server.service().server().baseUrl();
        ApiClient api = server.api();
        Hash32 paid = node.send("bech32", 1.0);
        PushFollowTest.awaitMempool(api, paid);
        String events = base + "/v1/tx/" + paid.displayHex() + "/events";

        try (SseClient sse = new SseClient(events, null)) {
          sse.next("mempool", SOON);

          node.stop();
          SseClient.Event stale = sse.next("stale", NOTICED_WITHIN);
          assertEquals(paid.displayHex(), stale.data().path("txid").asText());
          assertEquals("node unreachable", stale.data().path("follow").asText());
          assertFalse(stale.data().path("reason").asText().isEmpty(), stale.toString());
          assertFalse(stale.data().has("blockHash"), "not a tx in a stale block: " + stale);
          assertEquals(
              "node unreachable",
              api.get("/v1/status").json().path("follow").path("state").asText());
          assertTrue(sse.none(Duration.ofSeconds(2)), "once per outage, not per retry");

          // a subscriber during the outage: the state as last known, then stale
          long staleId;
          try (SseClient late = new SseClient(events, null)) {
            late.next("mempool", SOON);
            SseClient.Event told = late.next("stale", SOON);
            assertEquals("node unreachable", told.data().path("follow").asText());
            staleId = told.id();
          }

          node.restart();
          SseClient.Event back = sse.next(RECOVERED_WITHIN);
          assertEquals("mempool", back.kind(), back.toString()); // Core kept its mempool
          assertEquals("following", back.data().path("follow").asText());
          assertTrue(back.id() > stale.id());
          assertTrue(api.get("/v1/tx/" + paid.displayHex()).body().contains("mempool"));

          // following again: its changes as before
          Hash32 block = node.mine(1).get(0);
          SseClient.Event confirmed = sse.next("confirmed", SOON);
          assertEquals(block.displayHex(), confirmed.data().path("blockHash").asText());
          assertFalse(confirmed.data().has("follow"), confirmed.toString());

          // a reconnect from the outage resumes: the recovery, then the confirmation
          try (SseClient resumed = new SseClient(events, Long.toString(staleId))) {
            assertEquals("mempool", resumed.next(SOON).kind());
            assertEquals("confirmed", resumed.next(SOON).kind());
          }
        }
      }
    }
  }
}
