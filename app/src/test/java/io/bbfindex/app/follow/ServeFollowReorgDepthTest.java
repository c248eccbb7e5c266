package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reorg-depth histogram ({@code bbf_follow_reorg_depth_blocks}) as Prometheus scrapes it from
 * {@code serve --follow}, after reorgs of depth 2 and 6 made on a real node with {@code
 * invalidateblock} and a longer branch mined on top.
 */
class ServeFollowReorgDepthTest {

  @TempDir Path tmp;

  @Test
  void reorgsOfDepthTwoAndSixAreObservedInTheDepthHistogram() throws Exception {
    try (RegtestNode node = TestNodes.start(true, RegtestNode.CURRENT)) {
      node.mine(101);
      node.stop(); // Core writes its block index at shutdown: the snapshot starts at 101
      node.restart();
      try (FollowedServer server = FollowedServer.start(node, tmp)) {
        ApiClient api = server.api();
        FollowingBackend following = server.backend();
        assertEquals(0, api.metric("bbf_follow_reorg_depth_blocks_count"), "no reorg yet");

        List<Hash32> mined = node.mine(8);
        assertTrue(following.follower().awaitTip(mined.getLast(), Duration.ofSeconds(10)));
        reorg(node, following, mined.get(6), 2); // the last 2 blocks lost
        int tip = node.rpc().call("getblockcount").asInt();
        reorg(
            node,
            following,
            Hash32.ofDisplayHex(node.rpc().call("getblockhash", tip - 5).asText()),
            6);

        assertEquals(2, api.metric("bbf_follow_reorg_depth_blocks_count"));
        assertEquals(8, api.metric("bbf_follow_reorg_depth_blocks_sum"));
        assertEquals(6, api.metric("bbf_follow_reorg_depth_blocks_max"));
        Map<String, Double> cumulative =
            Map.of("1.0", 0.0, "2.0", 1.0, "3.0", 1.0, "6.0", 2.0, "10.0", 2.0, "+Inf", 2.0);
        for (var bucket : cumulative.entrySet()) {
          assertEquals(
              bucket.getValue(),
              api.metric("bbf_follow_reorg_depth_blocks_bucket", Map.of("le", bucket.getKey())),
              "le=" + bucket.getKey());
        }
        // the per-bucket counters beside it agree
        assertEquals(1, api.metric("bbf_follow_reorgs_total", Map.of("depth", "2")));
        assertEquals(1, api.metric("bbf_follow_reorgs_total", Map.of("depth", "4-6")));
      }
    }
  }

  /**
   * Invalidates {@code from} (the node disconnects it and every block above: {@code depth} blocks)
   * and mines a longer branch, then waits until the follower serves its tip.
   */
  private static void reorg(RegtestNode node, FollowingBackend following, Hash32 from, int depth)
      throws Exception {
    int before = node.rpc().call("getblockcount").asInt();
    node.rpc().call("invalidateblock", from.displayHex());
    assertEquals(before - depth, node.rpc().call("getblockcount").asInt(), "reorg depth");
    List<Hash32> branch = node.mine(depth + 1);
    assertTrue(following.follower().awaitTip(branch.getLast(), Duration.ofSeconds(10)));
  }
}
