package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a regtest node says of txids ({@code getrawtransaction <txid> 1 <blockhash>}) and what a
 * served bbf-index answers, in one comparable line each: the own index's acceptance and kill tests.
 */
final class NodeAnswers {
  private NodeAnswers() {}

  static List<Hash32> txids(RegtestNode node, String block) throws IOException {
    List<Hash32> out = new ArrayList<>();
    for (JsonNode t : node.rpc().call("getblock", block, 1).path("tx")) {
      out.add(Hash32.ofDisplayHex(t.asText()));
    }
    return out;
  }

  /** Every txid of every block the node has: the active chain and its stale branches. */
  static List<Hash32> everyTxid(RegtestNode node) throws IOException {
    Set<Hash32> out = new LinkedHashSet<>();
    int tip = node.rpc().call("getblockcount").asInt();
    for (int h = 1; h <= tip; h++) {
      out.addAll(txids(node, node.rpc().call("getblockhash", h).asText()));
    }
    for (JsonNode t : node.rpc().call("getchaintips")) {
      String h = t.get("hash").asText();
      for (int i = 0; i < t.get("branchlen").asInt(); i++) {
        out.addAll(txids(node, h));
        h = node.rpc().call("getblockheader", h).get("previousblockhash").asText();
      }
    }
    return List.copyOf(out);
  }

  /**
   * What the node says of each txid: in its active block (getrawtransaction with that block: its
   * confirmations and raw hex), else in a stale block (0 confirmations there), else in the mempool
   * or unknown.
   */
  static Map<String, String> expected(RegtestNode node, List<Hash32> txids) throws IOException {
    Map<String, List<String>> blocksOf = new LinkedHashMap<>();
    for (JsonNode t : node.rpc().call("getchaintips")) {
      String h = t.get("hash").asText();
      for (int i = 0; i < t.get("branchlen").asInt(); i++) {
        for (Hash32 tx : txids(node, h)) {
          blocksOf.computeIfAbsent(tx.displayHex(), k -> new ArrayList<>()).add(h);
        }
        h = node.rpc().call("getblockheader", h).get("previousblockhash").asText();
      }
    }
    Set<String> mempool = new LinkedHashSet<>();
    node.rpc().call("getrawmempool").forEach(t -> mempool.add(t.asText()));
    Map<String, String> out = new LinkedHashMap<>();
    for (Hash32 txid : txids) {
      String id = txid.displayHex();
      String answer = null;
      try {
        JsonNode tx = node.rpc().call("getrawtransaction", id, 1, activeBlockOf(node, id));
        answer =
            "confirmed "
                + tx.get("blockhash").asText()
                + " "
                + tx.get("confirmations").asInt()
                + " "
                + tx.get("hex").asText();
      } catch (IOException notActive) {
        // not in the active block the wallet knows: stale or mempool
      }
      if (answer == null && mempool.contains(id)) {
        answer = "mempool";
      }
      if (answer == null && blocksOf.containsKey(id)) {
        String b = blocksOf.get(id).getFirst();
        JsonNode tx = node.rpc().call("getrawtransaction", id, 1, b);
        assertFalse(tx.get("in_active_chain").asBoolean());
        answer = "stale " + b + " " + tx.path("confirmations").asInt(0);
      }
      out.put(id, answer == null ? "unknown" : answer);
    }
    return out;
  }

  /** The active block of a txid, from the wallet (every tx here is the wallet's or a coinbase). */
  static String activeBlockOf(RegtestNode node, String txid) throws IOException {
    JsonNode w = node.wallet().call("gettransaction", txid);
    String block = w.path("blockhash").asText("");
    if (block.isEmpty() || w.path("confirmations").asInt() <= 0) {
      throw new IOException("not confirmed on the active chain");
    }
    return block;
  }

  static List<String> awaitAgreement(ApiClient api, Map<String, String> expected, Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    List<String> wrong;
    do {
      wrong = new ArrayList<>();
      for (Map.Entry<String, String> e : expected.entrySet()) {
        String got = served(api, e.getKey(), e.getValue().startsWith("confirmed"));
        if (!got.equals(e.getValue())) {
          wrong.add(e.getKey() + ": served " + got + ", node " + e.getValue());
        }
      }
      if (wrong.isEmpty()) {
        return wrong;
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    return wrong;
  }

  static String served(ApiClient api, String txid, boolean withHex) {
    ApiClient.Answer a = api.get("/v1/tx/" + txid);
    if (a.status() == 404) {
      return "unknown";
    }
    JsonNode j = a.json();
    return switch (j.path("status").asText()) {
      case "confirmed" ->
          "confirmed "
              + j.path("blockHash").asText()
              + " "
              + j.path("confirmations").asInt()
              + (withHex ? " " + api.get("/v1/tx/" + txid + "/hex").body() : "");
      case "stale" ->
          "stale " + j.path("blockHash").asText() + " " + j.path("confirmations").asInt();
      case "mempool" -> "mempool";
      default -> "status " + a.status() + " " + a.body();
    };
  }
}
