package io.bbfindex.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.layer.TipAnswer;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.NodeTruth;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reorgs made by a competing chain that a second node mined (its blocks handed to the followed node
 * with {@code submitblock}), of depth 6 and 100, followed at once by a ZMQ follower and by a
 * polling one; and a node without ZMQ, where discovery finds none and the follower polls.
 */
class FollowerCompetingChainTest {
  private static final Duration WITHIN = Duration.ofSeconds(1);
  private static final Duration REORG_WITHIN = Duration.ofSeconds(20);

  private final List<AutoCloseable> open = new ArrayList<>();

  private <T extends AutoCloseable> T closeLater(T t) {
    open.add(0, t);
    return t;
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private RegtestNode followed;
  private RegtestNode rival;

  @BeforeEach
  void twoNodesOnOneChain() throws Exception {
    followed = closeLater(TestNodes.start(true));
    rival = closeLater(TestNodes.start(false));
    followed.mine(110);
    copyBlocks(followed, rival, 1, 110);
    assertEquals(followed.bestBlock(), rival.bestBlock());
  }

  /** Hands {@code from}'s active blocks at heights {@code first..last} to {@code to}. */
  private static void copyBlocks(RegtestNode from, RegtestNode to, int first, int last)
      throws IOException {
    for (int h = first; h <= last; h++) {
      String hash = from.rpc().call("getblockhash", h).asText();
      JsonNode result = to.rpc().call("submitblock", from.rpc().call("getblock", hash, 0).asText());
      // "inconclusive": valid, on a branch with less work so far (the rival's first blocks).
      if (!result.isNull() && !List.of("duplicate", "inconclusive").contains(result.asText())) {
        throw new IOException("submitblock of height " + h + ": " + result.asText());
      }
    }
  }

  @Test
  void competingChainsOfDepthSixAndHundredReplaceTheFollowedOnesForZmqAndPollingFollowers()
      throws Exception {
    Follower zmq = closeLater(Follower.start(FollowerAcceptanceTest.config(followed, null)));
    Follower polling =
        closeLater(Follower.start(FollowerAcceptanceTest.config(followed, FollowConfig.NO_ZMQ)));
    NodeTruth truth = new NodeTruth(followed);
    for (int depth : new int[] {6, 100}) {
      int fork = followed.rpc().call("getblockcount").asInt();
      List<Hash32> sent = new ArrayList<>();
      for (int i = 0; i < depth; i++) {
        if (i < 6) {
          sent.add(followed.send(i % 2 == 0 ? "bech32" : "legacy", 0.1));
        }
        followed.mine(1);
      }
      truth.collect();
      for (Follower f : List.of(zmq, polling)) {
        assertTrue(f.awaitTip(followed.bestBlock(), Duration.ofSeconds(30)), f.status().toString());
        truth.assertFollowerAgrees(f, WITHIN);
      }
      List<Hash32> rivalBlocks = rival.mine(depth + 1);
      copyBlocks(rival, followed, fork + 1, fork + depth + 1);
      assertEquals(rivalBlocks.getLast(), followed.bestBlock(), "the longer rival chain won");
      truth.collect();
      for (Follower f : List.of(zmq, polling)) {
        assertTrue(f.awaitTip(followed.bestBlock(), REORG_WITHIN), f.status().toString());
        truth.assertFollowerAgrees(f, REORG_WITHIN);
        // The followed node's own txs of the lost branch went back to its mempool.
        assertInstanceOf(TipAnswer.InMempool.class, f.lookup(sent.getFirst()).orElseThrow());
      }
      assertEquals(
          followed.bestBlock(), rival.bestBlock(), "both on the rival's chain for the next round");
    }
    for (Follower f : List.of(zmq, polling)) {
      assertEquals(106, f.stats().blocksDisconnected());
      assertEquals(1, f.stats().reorgs(3), "one reorg of depth 4..6");
      assertEquals(1, f.stats().reorgs(5), "one reorg of depth 11..100");
    }
    assertTrue(polling.status().notifications().startsWith("polling"));
  }

  @Test
  void aNodeWithoutZmqIsPolledWithinASecond() throws Exception {
    rival.mine(101); // coins for the rival's own wallet
    Follower f = closeLater(Follower.start(FollowerAcceptanceTest.config(rival, null)));
    assertTrue(f.awaitTip(rival.bestBlock(), Duration.ofSeconds(30)));
    assertTrue(f.status().notifications().startsWith("polling"), f.status().notifications());
    NodeTruth truth = new NodeTruth(rival);
    for (int round = 0; round < 2; round++) {
      truth.collect(rival.send("bech32m", 0.5), rival.send("p2sh-segwit", 0.5));
      truth.assertFollowerAgrees(f, WITHIN);
      Hash32 block = rival.mine(1).getFirst();
      long mined = System.nanoTime();
      assertTrue(f.awaitTip(block, WITHIN));
      System.out.printf(
          "block-to-answer latency (polling): %.1f ms%n", (System.nanoTime() - mined) / 1e6);
      truth.collect();
      truth.assertFollowerAgrees(f, WITHIN);
    }
    rival.rpc().call("invalidateblock", rival.bestBlock().displayHex());
    truth.collect();
    truth.assertFollowerAgrees(f, Duration.ofSeconds(5));
  }
}
