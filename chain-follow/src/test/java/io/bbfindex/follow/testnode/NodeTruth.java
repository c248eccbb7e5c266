package io.bbfindex.follow.testnode;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.Follower;
import io.bbfindex.follow.layer.TipAnswer;
import io.bbfindex.follow.node.RpcException;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assertions;

/**
 * What the node itself says about txids ({@code getrawtransaction <txid> 1} with {@code -txindex}),
 * compared with the follower's answers. The node's four cases: an error -5 (unknown), no {@code
 * blockhash} (mempool), a {@code blockhash} with confirmations > 0 (confirmed), or with 0 (only in
 * a block off the active chain: stale). The stale case compares the node's {@code confirmations}
 * field itself (an absent field reads "null"), so a follower reporting getblockheader's -1 for a tx
 * differs.
 */
public final class NodeTruth {
  private final RegtestNode node;

  /** Every txid ever seen in a block or the mempool: stale and replaced ones stay here. */
  private final Set<Hash32> seen = new LinkedHashSet<>();

  public NodeTruth(RegtestNode node) {
    this.node = node;
  }

  /**
   * Remembers every txid now in the node's active chain (above height 0) and its mempool, plus
   * {@code extra}.
   */
  public void collect(Hash32... extra) throws IOException {
    int height = node.rpc().call("getblockcount").asInt();
    for (int h = 1; h <= height; h++) {
      String hash = node.rpc().call("getblockhash", h).asText();
      for (JsonNode t : node.rpc().call("getblock", hash, 1).path("tx")) {
        seen.add(Hash32.ofDisplayHex(t.asText()));
      }
    }
    for (JsonNode t : node.rpc().call("getrawmempool")) {
      seen.add(Hash32.ofDisplayHex(t.asText()));
    }
    seen.addAll(List.of(extra));
  }

  /** Adds the txids of {@code block} (e.g. one about to be invalidated). */
  public void collectBlock(Hash32 block) throws IOException {
    for (JsonNode t : node.rpc().call("getblock", block.displayHex(), 1).path("tx")) {
      seen.add(Hash32.ofDisplayHex(t.asText()));
    }
  }

  public int size() {
    return seen.size();
  }

  /**
   * Asserts that the follower answers every remembered txid as the node does, trying again until
   * {@code within} has passed (the follower applies the node's notifications asynchronously).
   */
  public void assertFollowerAgrees(Follower follower, Duration within)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    List<String> differences;
    while (true) {
      differences = differences(follower);
      if (differences.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(20);
    }
    Assertions.fail(
        differences.size()
            + " of "
            + seen.size()
            + " txids answered unlike the node after "
            + within.toMillis()
            + " ms, e.g. "
            + differences.subList(0, Math.min(5, differences.size()))
            + "; follower "
            + follower.status());
  }

  private List<String> differences(Follower follower) throws IOException {
    List<String> out = new ArrayList<>();
    for (Hash32 txid : seen) {
      String expected = nodeSays(txid);
      String actual = followerSays(follower, txid);
      if (!expected.equals(actual)) {
        out.add(txid + ": node " + expected + ", follower " + actual);
      }
    }
    return out;
  }

  private String nodeSays(Hash32 txid) throws IOException {
    JsonNode tx;
    try {
      tx = node.rpc().call("getrawtransaction", txid.displayHex(), 1);
    } catch (RpcException e) {
      if (e.code() == RpcException.NOT_FOUND) {
        return "unknown";
      }
      throw e;
    }
    if (!tx.hasNonNull("blockhash")) {
      return "mempool";
    }
    int confirmations = tx.path("confirmations").asInt();
    return confirmations > 0
        ? "confirmed " + tx.path("blockhash").asText() + " " + confirmations
        : "stale " + tx.path("blockhash").asText() + " " + tx.get("confirmations");
  }

  private static String followerSays(Follower follower, Hash32 txid) {
    boolean maybe = follower.mightContain(txid.internal(), 0);
    Optional<TipAnswer> a = follower.lookup(txid);
    if (a.isPresent() && !maybe) {
      return "FALSE NEGATIVE of the filters for " + a.get();
    }
    return switch (a.orElse(null)) {
      case null -> "unknown";
      case TipAnswer.InMempool m -> "mempool";
      case TipAnswer.Confirmed c -> "confirmed " + c.blockHash() + " " + c.confirmations();
      case TipAnswer.Stale s -> "stale " + s.blockHash() + " " + s.confirmations();
    };
  }
}
