package io.bbfindex.app.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.eth.EthConfig;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.testing.AnvilNode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28 point 5 over HTTP, against real anvil nodes: {@code serve --eth-rpc} follows a node that
 * is killed and replaced on its port by a node of another chain id. From then on every lookup is
 * 503 {@code chain_replaced} with {@code Retry-After} (never an old-chain "confirmed", never a
 * new-chain "pending"), {@code /readyz} is 503 with the reason, {@code /livez} stays 200 and {@code
 * /v1/eth/status} shows the reason. Before the fix: 200 "confirmed" for the old chain's
 * transactions, {@code /readyz} 200 and {@code lastError} null.
 */
class EthChainReplacedTest {
  @TempDir Path dir;

  @Test
  void aReplacedChainIsRefusedOverHttpAndReadinessSaysWhy() throws Exception {
    AnvilNode first = AnvilNode.start("--no-mining");
    int port = first.port();
    List<String> old = new ArrayList<>();
    for (int b = 0; b < 40; b++) {
      old.addAll(first.sendTransfers(2));
      first.mine(1);
    }
    first.mine(90);
    EthConfig config =
        EthConfig.of(first.url(), dir.resolve("eth"))
            .withRangeBits(4)
            .withFinalityDepth(8)
            .withPoll(Duration.ofMillis(100));
    try (Service service =
        Service.start(
            null, // Ethereum only
            EthIndex.open(config),
            new InetSocketAddress("127.0.0.1", 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      awaitReady(api, 200);
      assertEquals(
          "confirmed", api.get("/v1/eth/tx/" + old.getFirst()).json().path("status").asText());
      first.close();
      try (AnvilNode second = AnvilNode.startOnPort(port, "--no-mining", "--chain-id", "4244")) {
        List<String> fresh = new ArrayList<>(second.sendTransfers(3));
        second.mine(40);
        fresh.addAll(second.sendTransfers(2)); // pending on the new node
        Answer ready = awaitReady(api, 503);
        assertEquals(503, ready.status(), ready.body());
        assertTrue(ready.body().contains("chain id 4244"), ready.body());
        assertEquals(200, api.get("/livez").status());
        for (String h : old) {
          Answer a = api.get("/v1/eth/tx/" + h);
          assertEquals(503, a.status(), "old-chain " + h + ": " + a.body());
          assertEquals("chain_replaced", a.json().path("error").asText(), a.body());
          assertNotEquals(null, a.header("retry-after"), "Retry-After");
        }
        for (String h : fresh) {
          Answer a = api.get("/v1/eth/tx/" + h);
          assertEquals(503, a.status(), "new-chain " + h + ": " + a.body());
        }
        Answer batch = api.post("/v1/eth/tx/lookup", "[\"" + old.getLast() + "\"]");
        assertEquals(503, batch.status(), batch.body());
        var status = api.get("/v1/eth/status").json();
        assertTrue(
            status.path("chainReplaced").asText().contains("chain id 4244"), status.toString());
        assertEquals(status.path("chainReplaced").asText(), status.path("lastError").asText());
      }
    } finally {
      first.close();
    }
  }

  /** Polls {@code /readyz} for up to 15 s until it answers {@code status}; the last answer. */
  private static Answer awaitReady(ApiClient api, int status) throws InterruptedException {
    long deadline = System.nanoTime() + 15_000_000_000L;
    Answer a;
    do {
      a = api.get("/readyz");
      if (a.status() == status) {
        return a;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    return a;
  }
}
