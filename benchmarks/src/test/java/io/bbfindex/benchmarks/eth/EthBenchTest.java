package io.bbfindex.benchmarks.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.eth.testing.AnvilNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench eth}'s measuring code on a tiny chain against a real anvil (skipped with the reason
 * printed when anvil is not installed, failed under {@code CI=true}): every figure is measured, the
 * negatives made no RPC call, positives and negatives are measured over HTTP on both sides, and the
 * in-process rate beats the node's.
 */
class EthBenchTest {

  @Test
  void measuresIngestAndNegativesAgainstARealAnvil(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("eth-test", new PrintStream(printed, true, StandardCharsets.UTF_8));
    try (AnvilNode node = AnvilNode.start("--no-mining")) {
      EthBench.run(new EthBench.Plan(20, 10, 2, 1, Duration.ofMillis(300), 1), node, dir, report);
    }
    Map<String, String> s = report.summaries();
    String text = printed.toString(StandardCharsets.UTF_8);
    assertEquals("200", s.get("eth_txs"), text);
    assertEquals("21", s.get("eth_blocks"), text);
    assertEquals("0", s.get("eth_neg_rpc_calls"), text);
    for (String key :
        new String[] {
          "eth_ingest_blocks_per_s",
          "eth_ingest_txs_per_s",
          "eth_neg_lookups_per_s_in_process",
          "eth_http_neg_per_s_get",
          "eth_http_neg_per_s_batched_100",
          "eth_node_miss_per_s",
          "eth_node_miss_per_s_batched_100",
          "eth_http_pos_per_s_get",
          "eth_node_hit_per_s",
          "eth_neg_http_over_node_http",
          "eth_pos_http_over_node_http",
          "eth_batch_100_over_node_single_calls"
        }) {
      assertTrue(Double.parseDouble(s.get(key)) > 0, key + " in\n" + text);
    }
    assertTrue(Double.parseDouble(s.get("eth_neg_in_process_over_node_http")) > 1, text);
    assertTrue(text.contains("anvil eth_getTransactionByHash"), text);
    // A node keeping 16 blocks' transactions of 64 forgets about three quarters; the index none.
    assertEquals(1.0, Double.parseDouble(s.get("eth_history_bbf_answered_fraction")), text);
    double node = Double.parseDouble(s.get("eth_history_node_answered_fraction"));
    assertTrue(node > 0 && node < 0.5, "the pruned node answered " + node + " in\n" + text);
  }
}
