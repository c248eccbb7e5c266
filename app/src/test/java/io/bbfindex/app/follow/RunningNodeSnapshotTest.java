package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.encoding.Hash32;
import io.bbfindex.ingest.records.TxLocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 section 2: private snapshots of a node that writes while they are taken (mining,
 * sending, flushing its state with {@code gettxoutsetinfo}) open, and every tx of a block up to the
 * snapshot's tip is found where the node says.
 */
class RunningNodeSnapshotTest {

  @TempDir Path tmp;

  @Test
  void snapshotsTakenWhileTheNodeWritesOpenAndAnswerUpToTheirTip() throws Exception {
    try (RegtestNode node = TestNodes.start(false, RegtestNode.CURRENT)) {
      node.mine(105);
      // A node that never wrote its state has no block index on disk yet (nothing to snapshot).
      node.rpc().call("gettxoutsetinfo");
      AtomicBoolean stop = new AtomicBoolean();
      List<Hash32> sent = java.util.Collections.synchronizedList(new ArrayList<>());
      CompletableFuture<Void> writer =
          CompletableFuture.runAsync(
              () -> {
                try {
                  while (!stop.get()) {
                    sent.add(node.send("bech32", 0.01));
                    node.mine(1);
                    node.rpc()
                        .call("gettxoutsetinfo"); // Core writes its block index and chainstate now
                  }
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              });
      int previous = 0;
      for (int i = 0; i < 8; i++) {
        try (NodeIndex index =
            NodeIndex.open(node.datadir().resolve("regtest"), tmp.resolve("work"), true)) {
          int tip = SnapshotBase.of(index).height(); // complete up to here (the txindex may trail)
          assertTrue(
              tip >= previous || tip == 0,
              "snapshots never go back: " + tip + " after " + previous);
          previous = tip;
          Hash32 tipHash = Hash32.ofDisplayHex(node.rpc().call("getblockhash", tip).asText());
          assertEquals(
              tipHash,
              SnapshotBase.of(index).hash(),
              "the snapshot's base is the node's block at that height");
          // The txindex snapshot may run ahead of the block index (a lookup of a tx beyond the tip
          // then fails: the follower answers those); every tx at or below the tip is found.
          for (var t : node.rpc().call("getblock", tipHash.displayHex(), 1).path("tx")) {
            TxLocation loc =
                index
                    .findTx(Hash32.ofDisplayHex(t.asText()).internal())
                    .orElseThrow(
                        () ->
                            new AssertionError(
                                "tx "
                                    + t.asText()
                                    + " of block "
                                    + tip
                                    + " not in the snapshot's txindex; block index tip "
                                    + index.tipHeight()
                                    + ", txindex tip "
                                    + index.txindexTipHeight()));
            assertEquals(tip, loc.block().height());
            assertEquals(t.asText(), loc.txidHex());
          }
        }
      }
      stop.set(true);
      writer.get(60, TimeUnit.SECONDS);
      assertTrue(previous > 0, "the snapshots saw the blocks the node wrote: " + previous);
    }
  }
}
