package io.bbfindex.app.txindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.bitcoincore.StoreChoices;
import io.bbfindex.app.bitcoincore.TxIndexChoice;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.MerkleFold;
import io.bbfindex.app.testing.TxBytes;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance of the own txid index with a real bitcoind (issue 26): a regtest node WITHOUT {@code
 * -txindex} (ingested first: filters and own index), a few hundred blocks with transactions to
 * every address type, a reorg (a branch invalidated, a longer one mined: transactions in a stale
 * and an active block, coinbases only in stale ones). Stopped and served with {@code --txindex
 * auto}: every txid of every block answers as {@code getrawtransaction <txid> 1 <blockhash>}
 * reports it (block, height, confirmations, the raw bytes hashing to the txid, a merkle proof
 * folding to the header's root), random txids 404. Then the same node restarted with {@code
 * -txindex=1} and served with {@code --txindex node}: the very same answers, byte for byte, for
 * every tx of the active chain (a tx only in the invalidated branch is not in a txindex built after
 * the reorg: 404 there, stale from the own index, as {@code getrawtransaction} with its block hash
 * reports it).
 */
class OwnTxindexRegtestTest {

  @TempDir Path tmp;

  private static final PrintStream QUIET =
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

  /** What the node says of one txid in one block. */
  record Expected(
      String txid,
      String block,
      int height,
      int confirmations,
      boolean active,
      String hex,
      String merkleRoot) {}

  @Test
  void everyTxidOfANodeWithoutTxindexIsAnsweredAsTheNodeSaysAndAsItsTxindexWould()
      throws Exception {
    try (RegtestNode node =
        RegtestNode.start(
            TestNodes.binaryOrSkip(RegtestNode.CURRENT), false, List.of("-txindex=0"))) {
      assertFalse(Files.exists(node.datadir().resolve("regtest/indexes/txindex")));
      buildChainWithReorg(node);
      Map<String, Expected> expected = expectedAnswers(node);
      int tip = node.rpc().call("getblockcount").asInt();
      node.stop();

      Path datadir = node.datadir().resolve("regtest");
      List<String> ids = new ArrayList<>(expected.keySet());
      Map<String, String> ownAnswers = new LinkedHashMap<>();
      // ingest of a node without a txindex builds its filters and the own index; serve uses them
      String summary =
          new CoreChainAccess()
              .ingest(
                  datadir,
                  tmp.resolve("filters"),
                  tmp.resolve("w1"),
                  new StoreChoices(0.01, false, false),
                  QUIET);
      assertTrue(summary.contains("own txid index: "), summary);
      Path ownFile = tmp.resolve("filters").resolve("own-txindex.dat");
      java.nio.file.attribute.FileTime built = Files.getLastModifiedTime(ownFile);
      try (Service own =
          serve(datadir, tmp.resolve("filters"), TxIndexChoice.AUTO, tmp.resolve("w1"))) {
        ApiClient api = ApiClient.unrecorded(own.server().baseUrl());
        JsonNode status = api.get("/v1/status").json();
        assertEquals("own", status.get("txindexSource").asText());
        assertEquals("none", status.get("txindexLayout").asText());
        assertEquals(tip, status.get("tipHeight").asInt());
        assertEquals(built, Files.getLastModifiedTime(ownFile), "serve kept ingest's own index");
        for (String id : ids) {
          assertAsTheNode(api, expected.get(id));
          for (String route : List.of("", "/hex", "/merkle-proof")) {
            ownAnswers.put(id + route, api.get("/v1/tx/" + id + route).body());
          }
        }
        Random rnd = new Random(26);
        for (int i = 0; i < 500; i++) {
          byte[] t = new byte[32];
          rnd.nextBytes(t);
          String id = HexFormat.of().formatHex(t);
          assertEquals(404, api.get("/v1/tx/" + id).status(), id);
        }
      }

      // the same node with a txindex, served from it: the same answers
      node.restart(List.of("-txindex=1"));
      awaitTxindexSynced(node);
      node.stop();
      try (Service fromNode =
          serve(datadir, tmp.resolve("filters-node"), TxIndexChoice.NODE, tmp.resolve("w2"))) {
        ApiClient api = ApiClient.unrecorded(fromNode.server().baseUrl());
        assertEquals("node", api.get("/v1/status").json().get("txindexSource").asText());
        int compared = 0;
        for (Map.Entry<String, String> e : ownAnswers.entrySet()) {
          String id = e.getKey().substring(0, 64);
          if (expected.get(id).active()) {
            assertEquals(e.getValue(), api.get("/v1/tx/" + e.getKey()).body(), e.getKey());
            compared++;
          } else {
            // Core's txindex, built after the reorg, indexed only the active chain: a tx only in
            // the invalidated branch is unknown to it, while getrawtransaction <txid> 1 <block>
            // (and the own index, built from every block on disk) still find it
            assertEquals(404, api.get("/v1/tx/" + id).status(), id);
          }
        }
        assertTrue(compared > 3 * 300, compared + " answers compared");
      }
    }
  }

  private static Service serve(Path datadir, Path filters, TxIndexChoice choice, Path work)
      throws IOException {
    return Service.start(
        new CoreChainAccess()
            .open(ServeRequest.of(datadir, filters, work, 0.01).withTxIndex(choice), QUIET),
        new InetSocketAddress("127.0.0.1", 0),
        HttpInitializer.DEFAULT_MAX_BODY_BYTES);
  }

  /**
   * 101 blocks to mature a coinbase, then rounds of sends to every address type each mined (some
   * blocks empty), about 300 blocks; then the last 3 blocks invalidated and 5 mined instead (their
   * transactions back from the mempool into the new branch).
   */
  private static void buildChainWithReorg(RegtestNode node) throws IOException {
    node.mine(110);
    String[] types = {"legacy", "p2sh-segwit", "bech32", "bech32m"};
    for (int round = 0; round < 40; round++) {
      for (int i = 0; i <= round % 3; i++) {
        node.send(types[(round + i) % types.length], (10 + round) / 100.0);
      }
      node.mine(1 + round % 5);
    }
    for (String t : types) {
      node.send(t, 0.5);
    }
    node.mine(1);
    int height = node.rpc().call("getblockcount").asInt();
    String fork = node.rpc().call("getblockhash", height - 2).asText();
    node.rpc().call("invalidateblock", fork);
    node.mine(5);
  }

  /**
   * For every block the node has (the active chain and the invalidated branch), every txid as
   * {@code getrawtransaction <txid> 1 <blockhash>} reports it; a txid in a stale and an active
   * block is expected in the active one.
   */
  private static Map<String, Expected> expectedAnswers(RegtestNode node) throws IOException {
    List<String> blocks = new ArrayList<>();
    for (JsonNode t : node.rpc().call("getchaintips")) {
      if (!t.get("status").asText().equals("active")) {
        String h = t.get("hash").asText();
        for (int i = 0; i < t.get("branchlen").asInt(); i++) {
          blocks.add(h);
          h = node.rpc().call("getblockheader", h).get("previousblockhash").asText();
        }
      }
    }
    int tip = node.rpc().call("getblockcount").asInt();
    for (int h = 0; h <= tip; h++) {
      blocks.add(node.rpc().call("getblockhash", h).asText()); // active last: it overrides
    }
    Map<String, Expected> out = new LinkedHashMap<>();
    int stale = 0;
    for (String b : blocks) {
      JsonNode header = node.rpc().call("getblockheader", b);
      for (JsonNode t : node.rpc().call("getblock", b, 1).get("tx")) {
        String txid = t.asText();
        boolean genesis = header.get("height").asInt() == 0;
        JsonNode raw =
            genesis ? null : node.rpc().call("getrawtransaction", txid, 1, b); // Core refuses it
        boolean active = raw == null || raw.get("in_active_chain").asBoolean();
        stale += active ? 0 : 1;
        out.put(
            txid,
            new Expected(
                txid,
                b,
                header.get("height").asInt(),
                raw == null
                    ? header.get("confirmations").asInt()
                    : raw.path("confirmations").asInt(),
                active,
                raw == null ? "" : raw.get("hex").asText(),
                header.get("merkleroot").asText()));
      }
    }
    assertTrue(stale > 0, "the reorg left transactions only in stale blocks");
    assertTrue(out.size() > 300, out.size() + " txids");
    return out;
  }

  private static void assertAsTheNode(ApiClient api, Expected e) {
    ApiClient.Answer a = api.get("/v1/tx/" + e.txid());
    assertEquals(200, a.status(), e + " " + a.body());
    JsonNode j = a.json();
    assertEquals(e.block(), j.get("blockHash").asText(), e.toString());
    assertEquals(e.height(), j.get("height").asInt(), e.toString());
    assertEquals(e.active() ? "confirmed" : "stale", j.get("status").asText(), e.toString());
    assertEquals(e.confirmations(), j.get("confirmations").asInt(), e.toString());
    String hex = api.get("/v1/tx/" + e.txid() + "/hex").body();
    if (!e.hex().isEmpty()) {
      assertEquals(e.hex(), hex, e.toString());
    }
    byte[] raw = api.getBytes("/v1/tx/" + e.txid() + "/raw").body();
    assertArrayEquals(HexFormat.of().parseHex(hex), raw, e.toString());
    assertEquals(e.txid(), TxBytes.displayHex(txid(raw)), "the raw bytes hash to the txid");
    if (e.active()) {
      JsonNode proof = api.get("/v1/tx/" + e.txid() + "/merkle-proof").json();
      assertEquals(e.height(), proof.get("block_height").asInt());
      assertEquals(e.merkleRoot(), TxBytes.displayHex(MerkleFold.root(e.txid(), proof)));
    }
  }

  /** The txid of serialized bytes: SHA-256d without the witness (bitcoinj parses them). */
  private static byte[] txid(byte[] raw) {
    return org.bitcoinj.core.Transaction.read(java.nio.ByteBuffer.wrap(raw))
        .getTxId()
        .getReversedBytes();
  }

  private static void awaitTxindexSynced(RegtestNode node) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!node.rpc().call("getindexinfo").path("txindex").path("synced").asBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the node's txindex did not sync in 60 s");
      }
      Thread.sleep(100);
    }
  }
}
