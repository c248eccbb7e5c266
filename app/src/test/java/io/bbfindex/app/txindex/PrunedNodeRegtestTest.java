package io.bbfindex.app.txindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.bitcoincore.StoreChoices;
import io.bbfindex.app.bitcoincore.TxIndexChoice;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.pruned.PrunedOptions;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.workdir.NodeDirectories;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance of pruned nodes with real bitcoinds (issue 26, point 3): a regtest node with {@code
 * -prune=1 -fastprune} (and {@code prune=1} in its bitcoin.conf, which is how {@code serve} learns
 * it prunes) and no txindex, an archival node as its peer.
 *
 * <ol>
 *   <li>Store A is built while every block is on disk (some 850, past the 288 Core keeps); then
 *       {@code pruneblockchain} deletes the old blk files. Served again, every txid of a pruned
 *       block answers {@code confirmed} with its block and height, its bytes (hex, raw, merkle
 *       proof, esplora's hex) 410 {@code block_pruned} naming the block; txids of blocks still on
 *       disk answer their bytes; random txids 404.
 *   <li>Store B is first built after the prune: {@code /readyz} says the server is behind the
 *       node's prune horizon. Served with {@code --backfill-pruned} beside the running node, the
 *       pruned blocks are fetched from the archival peer ({@code getblockfrompeer}); once done,
 *       readyz is ready and every pruned txid answers as the node says; served again after the node
 *       stopped (the fetched blocks on its disk), their bytes too.
 * </ol>
 */
class PrunedNodeRegtestTest {

  @TempDir Path tmp;

  private static final PrintStream QUIET =
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

  private static final List<String> PRUNED = List.of("-txindex=0", "-prune=1", "-fastprune");

  /** A txid and its block as the node reports them. */
  record Expected(String txid, String block, int height) {}

  @Test
  void prunedTxidsStayConfirmedTheirBytesAreGoneAndBackfillFetchesThoseBeforeTheFirstStart()
      throws Exception {
    Path bitcoind = TestNodes.binaryOrSkip(RegtestNode.CURRENT);
    int p2p = ThreadLocalRandom.current().nextInt(31_000, 40_000);
    try (RegtestNode archival =
            RegtestNode.start(
                bitcoind, false, List.of("-txindex=0", "-listen=1", "-bind=127.0.0.1:" + p2p));
        RegtestNode node = RegtestNode.start(bitcoind, false, PRUNED)) {
      Files.writeString(node.datadir().resolve("bitcoin.conf"), "regtest=1\n[regtest]\nprune=1\n");
      connect(node, p2p);
      // the archival node mines and pays (a node in IBD downloads no block from a pruned peer),
      // the pruned one syncs from it
      archival.mine(105);
      String[] types = {"legacy", "p2sh-segwit", "bech32", "bech32m"};
      for (int round = 0; round < 24; round++) {
        archival.send(types[round % 4], (10 + round) / 100.0);
        archival.send(types[(round + 1) % 4], 0.05);
        archival.mine(1 + round % 3);
      }
      Map<String, Expected> early =
          txids(archival, 0, archival.rpc().call("getblockcount").asInt());
      awaitSynced(node, archival);

      Path datadir = node.datadir().resolve("regtest");
      PrunedOptions fromConf =
          new PrunedOptions(
              PrunedOptions.prunesPerConf(
                  NodeDirectories.resolve(node.datadir(), null).conf(), "regtest"),
              false,
              PrunedOptions.DEFAULT_BLOCKS_PER_SECOND,
              null);
      assertTrue(fromConf.nodePrunes(), "prune=1 in bitcoin.conf");
      // past the 288 blocks Core keeps (-fastprune's blk files hold 64 KiB, some 200 small
      // regtest blocks: enough of them), indexed by store A, then the old blk files pruned
      archival.mine(700);
      awaitSynced(node, archival);
      int tip = node.rpc().call("getblockcount").asInt();
      node.stop();
      try (Service a = serve(datadir, tmp.resolve("filters-a"), fromConf)) {
        ApiClient api = ApiClient.unrecorded(a.server().baseUrl());
        assertEquals(200, api.get("/readyz").status());
        assertTrue(api.get("/v1/status").json().at("/pruned/fingerprintTxids").asLong() > 0);
      }

      node.restart(PRUNED);
      node.rpc().call("pruneblockchain", tip - 290);
      int pruneHeight = node.rpc().call("getblockchaininfo").get("pruneheight").asInt();
      List<Expected> gone = new ArrayList<>();
      for (Expected e : early.values()) {
        if (e.height() < pruneHeight) {
          gone.add(e);
        }
      }
      List<Expected> kept =
          new ArrayList<>(txids(archival, pruneHeight, Math.min(tip, pruneHeight + 40)).values());
      assertTrue(
          gone.stream().filter(e -> e.height() > 105).count() > 10,
          gone.size() + " txids in pruned blocks, prune height " + pruneHeight);
      assertTrue(kept.size() > 10, kept.size() + " txids in blocks kept");
      node.stop();

      // 1. indexed before the prune: still confirmed, bytes 410
      try (Service a = serve(datadir, tmp.resolve("filters-a"), fromConf)) {
        ApiClient api = ApiClient.unrecorded(a.server().baseUrl());
        assertEquals(200, api.get("/readyz").status(), api.get("/readyz").body());
        for (Expected e : gone) {
          assertConfirmed(api, e, tip);
          for (String route : List.of("/hex", "/raw", "/merkle-proof")) {
            ApiClient.Answer r = api.get("/v1/tx/" + e.txid() + route);
            assertEquals(410, r.status(), e + route + " " + r.body());
            assertEquals("block_pruned", r.json().get("error").asText(), r.body());
            assertTrue(r.body().contains(e.block()), "names the block: " + r.body());
          }
          ApiClient.Answer esplora = api.get("/api/tx/" + e.txid() + "/hex");
          assertEquals(410, esplora.status(), esplora.body());
          assertTrue(esplora.body().contains(e.block()), esplora.body());
          assertEquals(
              "true",
              api.get("/api/tx/" + e.txid() + "/status").json().get("confirmed").asText(),
              e.toString());
        }
        for (Expected e : kept) {
          assertConfirmed(api, e, tip);
          assertEquals(200, api.get("/v1/tx/" + e.txid() + "/hex").status(), e.toString());
        }
        assertRandomTxidsAbsent(api);
        JsonNode pruned = api.get("/v1/status").json().get("pruned");
        assertEquals(0, pruned.get("unindexedBlocks").asInt(), pruned.toString());
        assertTrue(pruned.get("falseConfirmedPerLookup").asDouble() <= 1e-12, pruned.toString());
      }

      // 2. first started after the prune: behind the horizon, until the backfill fetched them
      try (Service b = serve(datadir, tmp.resolve("filters-b"), fromConf)) {
        ApiClient api = ApiClient.unrecorded(b.server().baseUrl());
        ApiClient.Answer ready = api.get("/readyz");
        assertEquals(503, ready.status(), ready.body());
        assertTrue(ready.body().contains("behind the node's prune horizon"), ready.body());
        assertTrue(ready.body().contains("--backfill-pruned"), ready.body());
        assertEquals(
            pruneHeight, api.get("/v1/status").json().at("/pruned/unindexedBlocks").asInt());
      }
      node.restart(PRUNED);
      connect(node, p2p);
      PrunedOptions backfill = new PrunedOptions(true, true, 200, rpcOf(node));
      try (Service b = serve(datadir, tmp.resolve("filters-b"), backfill)) {
        ApiClient api = ApiClient.unrecorded(b.server().baseUrl());
        JsonNode progress = awaitBackfill(api);
        assertEquals(pruneHeight, progress.get("blocksDone").asInt(), progress.toString());
        assertEquals(200, api.get("/readyz").status(), api.get("/readyz").body());
        for (Expected e : gone) {
          assertConfirmed(api, e, tip);
        }
        assertRandomTxidsAbsent(api);
        assertEquals(pruneHeight, api.metric("bbf_pruned_backfill_blocks_done"), 0.0);
        assertEquals(0, api.metric("bbf_pruned_unindexed_blocks"), 0.0);
      }
      node.stop();
      // the fetched blocks are on the node's disk again (until it prunes them): their bytes too;
      // a block of one transaction was indexed from its header's merkle root, not fetched
      Map<String, Long> txsInBlock = new LinkedHashMap<>();
      gone.forEach(e -> txsInBlock.merge(e.block(), 1L, Long::sum));
      int fetched = 0;
      try (Service b = serve(datadir, tmp.resolve("filters-b"), fromConf)) {
        ApiClient api = ApiClient.unrecorded(b.server().baseUrl());
        for (Expected e : gone) {
          assertConfirmed(api, e, tip);
          boolean wasFetched = txsInBlock.get(e.block()) > 1;
          fetched += wasFetched ? 1 : 0;
          assertEquals(
              wasFetched ? 200 : 410,
              api.get("/v1/tx/" + e.txid() + "/hex").status(),
              e.toString());
        }
      }
      assertTrue(fetched > 10, fetched + " txids of blocks fetched from the peer");
    }
  }

  private static Service serve(Path datadir, Path filters, PrunedOptions pruned)
      throws IOException {
    return Service.start(
        new CoreChainAccess()
            .open(
                new ServeRequest(
                    datadir,
                    filters,
                    filters.resolveSibling(filters.getFileName() + "-work"),
                    new StoreChoices(0.01, false, false),
                    TxIndexChoice.AUTO,
                    pruned),
                QUIET),
        new InetSocketAddress("127.0.0.1", 0),
        HttpInitializer.DEFAULT_MAX_BODY_BYTES);
  }

  private static void assertConfirmed(ApiClient api, Expected e, int tip) {
    ApiClient.Answer a = api.get("/v1/tx/" + e.txid());
    assertEquals(200, a.status(), e + " " + a.body());
    JsonNode j = a.json();
    assertEquals("confirmed", j.get("status").asText(), e.toString());
    assertEquals(e.block(), j.get("blockHash").asText(), e.toString());
    assertEquals(e.height(), j.get("height").asInt(), e.toString());
    assertEquals(tip - e.height() + 1, j.get("confirmations").asInt(), e.toString());
  }

  private static void assertRandomTxidsAbsent(ApiClient api) {
    Random rnd = new Random(26);
    for (int i = 0; i < 300; i++) {
      byte[] t = new byte[32];
      rnd.nextBytes(t);
      String id = HexFormat.of().formatHex(t);
      assertEquals(404, api.get("/v1/tx/" + id).status(), id);
    }
  }

  /** Every txid of the active blocks {@code from..to} with its block. */
  private static Map<String, Expected> txids(RegtestNode node, int from, int to)
      throws IOException {
    Map<String, Expected> out = new LinkedHashMap<>();
    for (int h = from; h <= to; h++) {
      String hash = node.rpc().call("getblockhash", h).asText();
      for (JsonNode t : node.rpc().call("getblock", hash, 1).get("tx")) {
        out.put(t.asText(), new Expected(t.asText(), hash, h));
      }
    }
    return out;
  }

  /** The pruned node connects out to the archival one (both refuse other peers). */
  private static void connect(RegtestNode node, int p2p) throws Exception {
    node.rpc().call("addnode", "127.0.0.1:" + p2p, "onetry");
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (node.rpc().call("getconnectioncount").asInt() == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the pruned node did not connect to its archival peer");
      }
      Thread.sleep(100);
    }
  }

  /** Waits until {@code node} has {@code source}'s tip. */
  private static void awaitSynced(RegtestNode node, RegtestNode source) throws Exception {
    String tip = source.rpc().call("getbestblockhash").asText();
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!node.rpc().call("getbestblockhash").asText().equals(tip)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the node did not sync to " + tip);
      }
      Thread.sleep(100);
    }
  }

  /** The backfill's progress once it is done (at most 120 s). */
  private static JsonNode awaitBackfill(ApiClient api) throws InterruptedException {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (true) {
      JsonNode b = api.get("/v1/status").json().at("/pruned/backfill");
      if (b.get("state").asText().equals("done")) {
        return b;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the backfill did not finish in 120 s: " + b);
      }
      Thread.sleep(200);
    }
  }

  private static NodeRpc rpcOf(RegtestNode node) {
    return node.rpc();
  }
}
