package io.bbfindex.follow.unflushed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.encoding.HashKeys;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running node started minutes ago has written no block index to disk yet (Core flushes it about
 * hourly and at shutdown): a snapshot of it holds the genesis block alone, read from the first
 * block file, so that the follower can take every later block from the node.
 */
class UnflushedBlockIndexTest {
  @TempDir Path work;

  @Test
  void aSnapshotOfAnUnflushedIndexHoldsTheNodesGenesis() throws Exception {
    try (RegtestNode node = TestNodes.start(false)) {
      node.mine(110);
      Path datadir = node.datadir().resolve("regtest");
      try (NodeIndex index = NodeIndex.open(datadir, work.resolve("a"), true)) {
        assertEquals(0, index.tipHeight(), "nothing but genesis is certain on disk");
        assertEquals(
            node.rpc().call("getblockhash", 0).asText(),
            HashKeys.toDisplayHex(index.activeBlockAt(0).orElseThrow().hash()));
      }
      node.stop(); // a clean shutdown flushes the index: all of it is read from disk then
      try (NodeIndex index = NodeIndex.open(datadir, work.resolve("b"), false)) {
        assertEquals(110, index.tipHeight());
      }
    }
  }
}
