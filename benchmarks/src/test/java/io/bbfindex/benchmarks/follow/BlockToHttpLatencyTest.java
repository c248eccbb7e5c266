package io.bbfindex.benchmarks.follow;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.testing.RequiredTool;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The block-to-HTTP-answer figure of {@code bench follow} with a real bitcoind and a real {@code
 * serve --follow} over three blocks: each round ends only when the server answers the new block's
 * tx 200 {@code confirmed} (else the measurement throws after 10 s), and the p50/p99 lines are
 * printed with values inside that bound. Skipped with a printed reason without {@code $BITCOIND},
 * failed then under {@code CI=true}.
 */
class BlockToHttpLatencyTest {

  @Test
  void everyBlocksTxIsAnsweredConfirmedOverHttpAndTheFigureIsPrinted() throws Exception {
    Optional<Path> bitcoind = RegtestNode.binary(RegtestNode.CURRENT);
    if (bitcoind.isEmpty()) {
      RequiredTool.missing("$BITCOIND (a bitcoind) is not set");
      return;
    }
    Map<String, String> summary = new LinkedHashMap<>();
    BlockToHttpLatency.measure(bitcoind.get(), 3, 7, summary);
    for (String key :
        new String[] {"follow_block_to_http_answer_p50_ms", "follow_block_to_http_answer_p99_ms"}) {
      double ms = Double.parseDouble(summary.get(key));
      assertTrue(ms > 0 && ms < 10_000, key + " " + ms);
    }
  }
}
