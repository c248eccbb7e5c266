package io.bbfindex.follow.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.follow.FollowConfig;
import io.bbfindex.follow.Follower;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The follower's events against a real regtest node with ZMQ: a watched tx entering the mempool,
 * replaced by {@code bumpfee} and by a full-RBF double spend that never signalled (the replacement
 * named exactly), confirmed in a block, and that block disconnected by {@code invalidateblock}.
 */
class FollowEventsTest {
  private static final Duration WITHIN = Duration.ofSeconds(5);

  private RegtestNode node;
  private Follower follower;
  private FollowEvents events;
  private final BlockingQueue<ChainEvent> seen = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() throws Exception {
    node = TestNodes.start(true);
    node.mine(110);
    Hash32 genesis = Hash32.ofDisplayHex(node.rpc().call("getblockhash", 0).asText());
    follower =
        Follower.start(
            new FollowConfig(
                node.rpc(), null, node.blocksDir(), genesis, 0, Duration.ofMillis(500)));
    assertTrue(follower.awaitTip(node.bestBlock(), Duration.ofSeconds(30)), "initial catch-up");
    events = FollowEvents.start(node.rpc());
    events.addListener((event, nanos) -> seen.add(event));
    follower.publishTo(events);
  }

  @AfterEach
  void stop() throws Exception {
    if (events != null) {
      events.close();
    }
    if (follower != null) {
      follower.close();
    }
    if (node != null) {
      node.close();
    }
  }

  @Test
  void replacementsAreNamedExactlyAndBlocksComeAndGoInOrder() throws Exception {
    Hash32 first = node.send("bech32", 1.0);
    events.watch(first);
    await(e -> e instanceof ChainEvent.TxEntered t && t.txid().equals(first));

    Hash32 bumped =
        Hash32.ofDisplayHex(
            node.wallet().call("bumpfee", first.displayHex()).path("txid").asText());
    ChainEvent.TxLeft left =
        (ChainEvent.TxLeft) await(e -> e instanceof ChainEvent.TxLeft l && l.txid().equals(first));
    assertEquals(new Removal.Replaced(bumped), left.removal());

    node.mine(1); // the next tx spends confirmed coins only
    Hash32 quiet = node.sendUnsignalled(2.0);
    assertTrue(
        node.rpc()
                .call("getmempoolentry", quiet.displayHex())
                .path("bip125-replaceable")
                .asBoolean()
            == false,
        "the tx does not signal");
    events.watch(quiet);
    await(e -> e instanceof ChainEvent.TxEntered t && t.txid().equals(quiet));
    Hash32 doubleSpend = node.doubleSpend(quiet);
    ChainEvent.TxLeft replaced =
        (ChainEvent.TxLeft) await(e -> e instanceof ChainEvent.TxLeft l && l.txid().equals(quiet));
    assertEquals(new Removal.Replaced(doubleSpend), replaced.removal());

    // A tx nobody watches leaves with its reason unresolved: no node call on its behalf.
    Hash32 unwatched = node.send("bech32", 0.5);
    await(e -> e instanceof ChainEvent.TxEntered t && t.txid().equals(unwatched));
    Hash32 unwatchedBump =
        Hash32.ofDisplayHex(
            node.wallet().call("bumpfee", unwatched.displayHex()).path("txid").asText());
    ChainEvent.TxLeft anonymous =
        (ChainEvent.TxLeft)
            await(e -> e instanceof ChainEvent.TxLeft l && l.txid().equals(unwatched));
    assertEquals(new Removal.Unresolved(), anonymous.removal());

    Hash32 block = node.mine(1).get(0);
    int height = node.rpc().call("getblockcount").asInt();
    ChainEvent.BlockConnected connected =
        (ChainEvent.BlockConnected)
            await(e -> e instanceof ChainEvent.BlockConnected b && b.hash().equals(block));
    assertEquals(height, connected.height());
    assertTrue(connected.txids().contains(doubleSpend), "the double spend is confirmed");
    assertTrue(connected.txids().contains(unwatchedBump), "the bump is confirmed");

    node.rpc().call("invalidateblock", block.displayHex());
    ChainEvent.BlockDisconnected disconnected =
        (ChainEvent.BlockDisconnected)
            await(e -> e instanceof ChainEvent.BlockDisconnected b && b.hash().equals(block));
    assertEquals(height, disconnected.height());
    assertEquals(connected.txids(), disconnected.txids());
    // Its txs go back to the mempool.
    await(e -> e instanceof ChainEvent.TxEntered t && t.txid().equals(doubleSpend));
  }

  /** The first event matching {@code wanted}, skipping the others; fails after {@link #WITHIN}. */
  private ChainEvent await(Predicate<ChainEvent> wanted) throws InterruptedException {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      ChainEvent e = seen.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertNotNull(e, "no matching event within " + WITHIN);
      if (wanted.test(e)) {
        return e;
      }
    }
  }
}
