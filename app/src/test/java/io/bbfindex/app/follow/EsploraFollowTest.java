package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.app.testing.OpenApiContract;
import io.bbfindex.app.testing.TxBytes;
import io.bbfindex.app.workdir.NodeDirectories;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The esplora routes that need the followed node, against a real running regtest node, under a
 * non-default prefix: {@code mempool/txids} is the node's mempool, and {@code POST tx} (with {@code
 * --esplora-relay}) reaches the node's {@code sendrawtransaction}, its refusals passed on as 400.
 */
class EsploraFollowTest {
  @TempDir Path tmp;

  @Test
  void mempoolTxidsAndRelayGoThroughTheFollowedNode() throws Exception {
    try (RegtestNode node = TestNodes.start(false, RegtestNode.CURRENT)) {
      node.mine(101);
      Hash32 old = node.send("bech32", 1.0);
      node.mine(1);
      node.stop();
      node.restart();
      Path datadir = node.datadir().resolve("regtest");
      FollowOptions options =
          new FollowOptions(node.rpc().endpoint().toString(), null, null, null, "none", 0);
      var backend =
          FollowServe.open(
              NodeDirectories.resolve(datadir, null),
              tmp.resolve("filters"),
              tmp.resolve("work"),
              0.01,
              options,
              System.err);
      try (Service service =
          Service.start(
              backend,
              null,
              new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
              HttpInitializer.DEFAULT_MAX_BODY_BYTES,
              "/esplora",
              FollowServe.relay(NodeDirectories.resolve(datadir, null), options, true))) {
        assertEquals(
            FollowState.FOLLOWING, FollowServe.awaitFollowing(backend, Duration.ofSeconds(30)));
        ApiClient api = new ApiClient(service.server().baseUrl());
        assertEquals(
            404, // an undocumented path by design: asked through a client the contract does not see
            new ApiClient(service.server().baseUrl()).get("/api/blocks/tip/height").status(),
            "the prefix moved");
        assertEquals("102", api.get("/esplora/blocks/tip/height").body());
        byte[] raw = HexFormat.of().parseHex(api.get("/esplora/tx/" + old + "/hex").body());
        assertEquals(old.displayHex(), new TxBytes(raw).txidHex);

        Hash32 sent = node.send("bech32m", 0.5);
        assertTrue(mempool(api).contains(sent.displayHex()), "a wallet send is in mempool/txids");

        String address = node.wallet().call("getnewaddress").asText();
        String unsigned =
            node.rpc().call("createrawtransaction", List.of(), Map.of(address, 0.25)).asText();
        String funded = node.wallet().call("fundrawtransaction", unsigned).path("hex").asText();
        String signed =
            node.wallet().call("signrawtransactionwithwallet", funded).path("hex").asText();
        String txid = new TxBytes(HexFormat.of().parseHex(signed)).txidHex;
        // A cross-site form post (DNS rebinding aside): refused before the node sees it.
        for (String[] marks :
            List.of(
                new String[] {"Origin", "https://evil.example"},
                new String[] {"Sec-Fetch-Site", "cross-site"})) {
          HttpResponse<String> refused =
              post(service, "application/x-www-form-urlencoded", signed, marks);
          assertEquals(403, refused.statusCode(), refused.body());
          assertFalse(node.rpc().call("getrawmempool").toString().contains(txid), "not relayed");
        }
        // What esplora clients send: text/plain (a browser page of the same origin, fetch with a
        // string), no marks (BDK, curl): relayed.
        HttpResponse<String> sameOrigin =
            post(
                service,
                "text/plain;charset=UTF-8",
                "0200000000010000000000",
                new String[] {"Origin", service.server().baseUrl()});
        assertEquals(400, sameOrigin.statusCode(), "reached the node: " + sameOrigin.body());
        HttpResponse<String> plain = post(service, "text/plain", signed, new String[0]);
        assertEquals(200, plain.statusCode(), plain.body());
        Answer relayed = api.post("/esplora/tx", signed); // JSON: needs a CORS preflight in a page
        assertEquals(200, relayed.status(), relayed.body());
        assertEquals(txid, relayed.body());
        assertTrue(node.rpc().call("getrawmempool").toString().contains(txid), "the node has it");
        assertTrue(mempool(api).contains(txid));
        Answer status = api.get("/esplora/tx/" + txid + "/status");
        for (long end = System.nanoTime() + 10_000_000_000L;
            status.status() == 404 && System.nanoTime() < end; ) {
          Thread.sleep(50); // the follower polls the node's mempool every 0.5 s here
          status = api.get("/esplora/tx/" + txid + "/status");
        }
        assertEquals(200, status.status(), status.body());
        assertFalse(status.json().path("confirmed").asBoolean(), "in the mempool");
        Answer again = api.post("/esplora/tx", "0200000000010000000000");
        assertEquals(400, again.status(), "the node's refusal is a 400: " + again.body());
        assertFalse(again.body().isEmpty());
        assertEquals(400, api.post("/esplora/tx", "not hex").status());
        OpenApiContract.of(api).checkAll(api);

        // The node gone (its cookie file with it): a 503 that names no exception class and no
        // local path; those go to the log (issue 28 point 6).
        node.stop();
        Answer down = new ApiClient(service.server().baseUrl()).get("/esplora/mempool/txids");
        assertEquals(503, down.status(), down.body());
        assertFalse(down.body().contains("Exception"), down.body());
        assertFalse(down.body().contains("java."), down.body());
        assertFalse(down.body().contains(node.datadir().toString()), down.body());
        assertFalse(down.body().contains(".cookie"), down.body());
        assertFalse(down.body().contains(tmp.toString()), down.body());
      }
    }
  }

  /** A POST of {@code body} to the relay with {@code contentType} and extra header pairs. */
  private static HttpResponse<String> post(
      Service service, String contentType, String body, String[] headers) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(service.server().baseUrl() + "/esplora/tx"))
              .header("Content-Type", contentType)
              .POST(HttpRequest.BodyPublishers.ofString(body));
      for (int i = 0; i + 1 < headers.length; i += 2) {
        b.header(headers[i], headers[i + 1]);
      }
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private static String mempool(ApiClient api) {
    Answer a = api.get("/esplora/mempool/txids");
    assertEquals(200, a.status(), a.body());
    return a.body();
  }
}
