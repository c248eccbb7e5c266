package io.bbfindex.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.follow.layer.TipAnswer;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.NodeTruth;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 12's acceptance against a real regtest node with ZMQ: after each block every txid is
 * answered as {@code getrawtransaction <txid> 1} says, mempool txids within 1 s; reorgs by {@code
 * invalidateblock}; RBF; a tx only in a stale block; the node stopped and restarted.
 */
class FollowerAcceptanceTest {
  private static final Duration WITHIN = Duration.ofSeconds(1);
  private static final Duration REORG_WITHIN = Duration.ofSeconds(10);
  private static final List<String> ADDRESS_TYPES =
      List.of("legacy", "p2sh-segwit", "bech32", "bech32m");

  private RegtestNode node;
  private Follower follower;
  private NodeTruth truth;

  @BeforeEach
  void start() throws Exception {
    node = TestNodes.start(true);
    node.mine(110); // ten spendable coinbases
    follower = Follower.start(config(node, null));
    truth = new NodeTruth(node);
  }

  static FollowConfig config(RegtestNode node, String zmq) throws Exception {
    Hash32 genesis = Hash32.ofDisplayHex(node.rpc().call("getblockhash", 0).asText());
    return new FollowConfig(node.rpc(), zmq, node.blocksDir(), genesis, 0, Duration.ofMillis(500));
  }

  @AfterEach
  void stop() throws Exception {
    if (follower != null) {
      follower.close();
    }
    if (node != null) {
      node.close();
    }
  }

  @Test
  void everyBlockAndMempoolTxIsAnsweredAsTheNodeSaysWithinASecond() throws Exception {
    assertTrue(follower.awaitTip(node.bestBlock(), Duration.ofSeconds(30)), "initial catch-up");
    assertTrue(
        follower.status().notifications().startsWith("zmq tcp://127.0.0.1:"),
        follower.status().notifications());
    for (int round = 0; round < 3; round++) {
      for (String type : ADDRESS_TYPES) {
        truth.collect(node.send(type, 0.1 + round));
      }
      truth.assertFollowerAgrees(follower, WITHIN); // the mempool txs
      Hash32 block = node.mine(1).get(0);
      long mined = System.nanoTime();
      assertTrue(follower.awaitTip(block, WITHIN), "block answered within 1 s");
      System.out.printf(
          "block-to-answer latency (zmq): %.1f ms%n", (System.nanoTime() - mined) / 1e6);
      truth.collect();
      truth.assertFollowerAgrees(follower, WITHIN);
    }
    FollowStatus s = follower.status();
    assertEquals("regtest", s.network());
    assertEquals(FollowState.FOLLOWING, s.state());
    assertEquals(node.bestBlock(), s.servedTipHash());
    assertEquals(node.rpc().call("getblockcount").asInt(), s.servedTipHeight());
    assertEquals(0, follower.lagBlocks());

    // Locations: the tx lies where the answer says, in the node's own blk file.
    Hash32 tx = node.send("bech32", 0.3);
    Hash32 block = node.mine(1).get(0);
    assertTrue(follower.awaitTip(block, WITHIN));
    TipAnswer.Confirmed c =
        assertInstanceOf(TipAnswer.Confirmed.class, follower.lookup(tx).orElseThrow());
    assertNotNull(c.location(), "the node's blocks dir is readable here");
    try (var reader =
        new io.bbfindex.ingest.blockfile.BlockFileReader(
            node.blocksDir(),
            io.bbfindex.ingest.blockfile.BlocksXorKey.read(node.blocksDir()),
            null)) {
      // Throws unless the header hashes to the block and the bytes at txOffset hash to the txid.
      reader.readTransaction(
          c.location().file(),
          c.location().dataPos(),
          c.txOffset(),
          tx.internal(),
          block.internal());
    }
  }

  @Test
  void reorgsOfDepthOneTwoAndSixByInvalidateBlockLeaveEveryAnswerAsTheNodes() throws Exception {
    assertTrue(follower.awaitTip(node.bestBlock(), Duration.ofSeconds(30)));
    for (int depth : new int[] {1, 2, 6}) {
      // Txs in each of the blocks about to lose, so that they go back to the mempool.
      List<Hash32> doomed = new java.util.ArrayList<>();
      for (int i = 0; i < depth; i++) {
        node.send(ADDRESS_TYPES.get(i % ADDRESS_TYPES.size()), 0.2);
        doomed.add(node.mine(1).get(0));
      }
      truth.collect();
      truth.assertFollowerAgrees(follower, REORG_WITHIN);
      node.rpc().call("invalidateblock", doomed.get(0).displayHex());
      truth.collect();
      // The lost blocks' txs are back in the mempool, their coinbases only in stale blocks.
      assertTrue(follower.awaitTip(node.bestBlock(), REORG_WITHIN));
      truth.assertFollowerAgrees(follower, REORG_WITHIN);
      List<Hash32> winners = node.mine(depth + 1);
      assertTrue(follower.awaitTip(winners.getLast(), REORG_WITHIN));
      truth.collect();
      truth.assertFollowerAgrees(follower, REORG_WITHIN);
    }
    assertEquals(9, follower.stats().blocksDisconnected());
    assertEquals(1, follower.stats().reorgs(0));
    assertEquals(1, follower.stats().reorgs(1));
    assertEquals(1, follower.stats().reorgs(3));
  }

  @Test
  void rbfReplacementLeavesTheReplacedTxUnknownOrStaleNeverConfirmed() throws Exception {
    assertTrue(follower.awaitTip(node.bestBlock(), Duration.ofSeconds(30)));
    // In the mempool: replaced there, never mined.
    Hash32 first = node.send("bech32", 1.0);
    Hash32 bumped =
        Hash32.ofDisplayHex(
            node.wallet().call("bumpfee", first.displayHex()).path("txid").asText());
    truth.collect(first, bumped);
    truth.assertFollowerAgrees(follower, WITHIN);
    assertTrue(follower.lookup(first).isEmpty(), "the replaced tx is unknown");

    // Mined, the block lost, then replaced in the mempool: the first stays stale in the lost block.
    Hash32 second = node.send("bech32m", 1.0);
    Hash32 lost = node.mine(1).get(0);
    assertTrue(follower.awaitTip(lost, WITHIN));
    truth.collect(second);
    node.rpc().call("invalidateblock", lost.displayHex());
    assertTrue(follower.awaitTip(node.bestBlock(), REORG_WITHIN));
    truth.assertFollowerAgrees(follower, REORG_WITHIN);
    Hash32 replacement =
        Hash32.ofDisplayHex(
            node.wallet().call("bumpfee", second.displayHex()).path("txid").asText());
    List<Hash32> won = node.mine(2);
    assertTrue(follower.awaitTip(won.getLast(), REORG_WITHIN));
    truth.collect(replacement);
    truth.assertFollowerAgrees(follower, REORG_WITHIN);
    TipAnswer.Stale s =
        assertInstanceOf(TipAnswer.Stale.class, follower.lookup(second).orElseThrow());
    assertEquals(lost, s.blockHash());
  }

  @Test
  void aStoppedNodeIsShownAndAnsweredFromWhatWasKnownAndARestartResyncs() throws Exception {
    Hash32 tx = node.send("p2sh-segwit", 0.7);
    Hash32 block = node.mine(1).get(0);
    Hash32 pending = node.send("legacy", 0.4);
    assertTrue(follower.awaitTip(block, Duration.ofSeconds(30)));
    truth.collect(tx, pending);
    truth.assertFollowerAgrees(follower, WITHIN);

    node.stop();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (follower.status().state() != FollowState.NODE_UNREACHABLE
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertEquals(FollowState.NODE_UNREACHABLE, follower.status().state());
    assertInstanceOf(TipAnswer.Confirmed.class, follower.lookup(tx).orElseThrow());
    assertInstanceOf(TipAnswer.InMempool.class, follower.lookup(pending).orElseThrow());

    long resyncs = follower.stats().mempoolResyncs();
    node.restart(); // new cookie, ZMQ counters from 0 again, the mempool reloaded from mempool.dat
    Hash32 after = node.send("bech32", 0.2);
    Hash32 next = node.mine(1).get(0);
    assertTrue(
        follower.awaitTip(next, Duration.ofSeconds(30)),
        "caught up after the restart: " + follower.status());
    truth.collect(after);
    truth.assertFollowerAgrees(follower, Duration.ofSeconds(5));
    assertTrue(
        follower.stats().mempoolResyncs() > resyncs,
        "the mempool was taken again after the restart");
    assertEquals(FollowState.FOLLOWING, follower.status().state());
  }
}
