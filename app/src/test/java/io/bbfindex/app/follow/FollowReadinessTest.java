package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An answer the server cannot stand behind is never a plain 404: while the follower is behind the
 * node (a restart after the node mined 300 blocks), cannot reach it (stopped) or is refused by it
 * (wrong credentials), a txid the filters do not hold is 503 {@code catching_up} / {@code
 * node_unreachable} with {@code Retry-After}, {@code /readyz} is 503 with the reason, {@code
 * /livez} 200; once it follows, the answers are the node's again.
 */
class FollowReadinessTest {
  private static final String UNKNOWN = "ab".repeat(32);

  @TempDir Path tmp;

  @Test
  void aRestartBehindTheNodeNeverAnswers404ForATxTheNodeConfirmed() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(101);
      try (FollowedServer first = FollowedServer.start(node, tmp)) {
        assertEquals(200, first.api().get("/readyz").status());
      }
      node.mine(299);
      String tx = node.send("bech32", 1.0).displayHex();
      node.mine(1);
      FollowingBackend backend = FollowedServer.open(node, tmp, 0);
      try (Service service =
          Service.start(
              backend,
              new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
              HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
        ApiClient api = ApiClient.unrecorded(service.server().baseUrl());
        Map<Integer, Integer> seen = new TreeMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        int status;
        do {
          ApiClient.Answer a = api.get("/v1/tx/" + tx);
          status = a.status();
          seen.merge(status, 1, Integer::sum);
          if (status == 503) {
            assertEquals("catching_up", a.json().path("error").asText(), a.body());
            assertEquals("1", a.header("Retry-After"));
            assertEquals(503, api.get("/readyz").status(), "ready while behind the node");
          } else {
            assertEquals(200, status, "a tx the node confirmed: " + a.body());
          }
        } while (status != 200 && System.nanoTime() < deadline);
        assertEquals(200, status, "answers seen: " + seen);
        // the tx's block is in; ready once the follower is at the node's tip with its mempool
        awaitStatus(api, "/readyz", 200);
        assertEquals(404, api.get("/v1/tx/" + UNKNOWN).status());
        System.out.println("restart 300 blocks behind: answers seen " + seen);
      }
    }
  }

  @Test
  void aStoppedNodeMakesUnknownIds503NotAbsentAndReadinessFalse() throws Exception {
    try (RegtestNode node = TestNodes.start(true);
        FollowedServer s = FollowedServer.start(node, tmp)) {
      ApiClient api = ApiClient.unrecorded(s.service().server().baseUrl());
      assertEquals(404, api.get("/v1/tx/" + UNKNOWN).status());
      node.stop();
      awaitStatus(api, "/readyz", 503);
      ApiClient.Answer a = api.get("/v1/tx/" + UNKNOWN);
      assertEquals(503, a.status(), a.body());
      assertEquals("node_unreachable", a.json().path("error").asText());
      assertEquals(200, api.get("/livez").status());
      assertTrue(
          !api.get("/v1/status").json().path("follow").path("lastError").isNull(),
          api.get("/v1/status").body());
      node.restart();
      awaitStatus(api, "/readyz", 200);
      assertEquals(404, api.get("/v1/tx/" + UNKNOWN).status());
    }
  }

  @Test
  void wrongCredentialsAreNamedAndNeverAnsweredAbsent() throws Exception {
    try (RegtestNode node = TestNodes.start(true)) {
      node.mine(5);
      FollowOptions wrong =
          new FollowOptions(node.rpc().endpoint().toString(), null, "nobody", "wrong", null, 0);
      FollowingBackend backend =
          (FollowingBackend)
              FollowServe.open(
                  io.bbfindex.app.workdir.NodeDirectories.resolve(
                      node.datadir().resolve("regtest"), null),
                  tmp.resolve("filters"),
                  tmp.resolve("work"),
                  0.01,
                  wrong,
                  System.err);
      try (Service service =
          Service.start(
              backend,
              new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
              HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
        ApiClient api = ApiClient.unrecorded(service.server().baseUrl());
        // 503 from the first request on: catching up before the first contact, then unreachable
        ApiClient.Answer a = api.get("/v1/tx/" + UNKNOWN);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!a.body().contains("node_unreachable") && System.nanoTime() < deadline) {
          assertEquals(503, a.status(), a.body());
          Thread.sleep(50);
          a = api.get("/v1/tx/" + UNKNOWN);
        }
        assertEquals(503, a.status(), a.body());
        assertEquals("node_unreachable", a.json().path("error").asText(), a.body());
        assertTrue(a.body().contains("401"), a.body());
        ApiClient.Answer ready = api.get("/readyz");
        assertEquals(503, ready.status());
        assertTrue(ready.body().contains("refused the credentials"), ready.body());
      }
    }
  }

  private static void awaitStatus(ApiClient api, String path, int wanted) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    int status = api.get(path).status();
    while (status != wanted && System.nanoTime() < deadline) {
      Thread.sleep(50);
      status = api.get(path).status();
    }
    assertEquals(wanted, status, path);
  }
}
