package io.bbfindex.benchmarks.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.BenchMain;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The quick path of {@code bench push} with fewer subscribers (the full 10,000 take minutes): a
 * real regtest node, the real {@code serve --follow} in its own JVM, WebSocket and SSE subscribers
 * from one client JVM, one block confirming 40 % of their txs. Asserted: every confirmed tx's
 * subscriber notified exactly once, nobody else notified, no client error, and the summary lines;
 * not the latency target, which a shared build machine cannot promise.
 */
class PushBenchTest {

  @Test
  void everyConfirmedSubscriberIsNotifiedExactlyOnceAndNobodyElse() {
    TestNodes.binaryOrSkip(RegtestNode.CURRENT);
    PrintStream stdout = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit;
    try (PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      exit = BenchMain.execute("push", "--quick", "--subscribers", "300", "--confirm", "120");
    } finally {
      System.setOut(stdout);
    }
    String report = out.toString(StandardCharsets.UTF_8);
    System.out.print(report);
    assertTrue(exit == 0 || exit == 1, "exit " + exit + ":\n" + report);
    assertTrue(report.contains("summary: push_notified_fraction 1\n"), report);
    assertTrue(report.contains("summary: push_unexpected_notifications 0\n"), report);
    assertTrue(report.contains("summary: push_client_errors 0\n"), report);
    for (String key :
        new String[] {
          "push_notify_p99_ms", "push_rss_per_1000_idle_subscribers_mib", "push_mining_rpc_ms"
        }) {
      assertTrue(report.contains("summary: " + key + " "), key + " missing:\n" + report);
    }
  }

  @Test
  void refusesMoreConfirmationsThanSubscribers() {
    assertEquals(2, BenchMain.execute("push", "--subscribers", "10", "--confirm", "11"));
  }
}
