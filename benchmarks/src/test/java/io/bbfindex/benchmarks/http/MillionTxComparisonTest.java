package io.bbfindex.benchmarks.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.ingest.testing.RequiredTool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 1M part of bench vs-core at a small size: the generator against the real bitcoind ({@code
 * $BITCOIND}) writes a chain of >= 20,000 txs into a cache directory, a second call reuses it, and
 * the comparison (1-s wrk runs, one round, two connection counts) checks every answer's exact
 * status and prints the summary lines. Skipped with a printed reason when wrk or bitcoind is
 * missing, failed then under {@code CI=true}.
 */
class MillionTxComparisonTest {

  @TempDir Path tmp;

  @Test
  void generatesOnceReusesTheCacheAndComparesWithExactStatuses() throws Exception {
    if (WrkRun.findWrk().isEmpty() || CoreRestNode.binary("BITCOIND").isEmpty()) {
      RequiredTool.missing("wrk (apt-get install wrk) or $BITCOIND (a bitcoind) is missing");
    }
    Path bitcoind = CoreRestNode.binary("BITCOIND").orElseThrow();
    MillionTxDatadir.Size size = new MillionTxDatadir.Size(20_000, 2_000);
    Path cache = tmp.resolve("cache");
    MillionTxDatadir.Generated first = MillionTxDatadir.ensure(bitcoind, cache, size);
    assertTrue(first.seconds() > 0 && first.chainTxs() >= 20_000, first.toString());
    assertEquals(size.blocks() * (size.fanOut() + 1), first.count());
    assertTrue(Files.exists(cache.resolve("complete")));
    MillionTxDatadir.Generated again = MillionTxDatadir.ensure(bitcoind, cache, size);
    assertEquals(0, again.seconds(), "the complete cache is reused");
    assertEquals(first.chainTxs(), again.chainTxs());

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("vs-core-1m-test", new PrintStream(out, true, StandardCharsets.UTF_8));
    MillionTxComparison.Setup setup =
        new MillionTxComparison.Setup(size, cache, 1, 1, 1, List.of(4, 8), 2_000);
    MillionTxComparison.run(setup, report, tmp.resolve("run"), WrkRun.require(), bitcoind);
    report.finish(null);
    String text = out.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertTrue(text.contains("cache reused") && text.contains("answers checked one by one"), text);
    assertTrue(text.contains("all 404") && text.contains("all 200"), text);
    for (String key :
        List.of("vs_core_1m_neg_ratio", "vs_core_1m_pos_raw_ratio", "vs_core_1m_neg_ratio_c8")) {
      String line =
          text.lines()
              .filter(l -> l.startsWith("summary: " + key + " "))
              .findFirst()
              .orElseThrow(() -> new AssertionError(key + " missing:\n" + text));
      assertTrue(Double.parseDouble(line.substring(("summary: " + key + " ").length())) > 0, line);
    }
  }

  /** An answer of another status than expected, even a 2xx one, fails the run. */
  @Test
  void aStatusOtherThanTheExpectedOneFails() throws Exception {
    String report = "status 200: 9\nstatus 204: 1\n";
    Map<Integer, Long> statuses = MillionTxComparison.statuses(report);
    assertEquals(Map.of(200, 9L, 204, 1L), statuses);
    MillionTxComparison.Run run =
        new MillionTxComparison.Run(new WrkRun(10, 1, 10, 1, 1, 0, 0), statuses);
    assertThrows(java.io.IOException.class, () -> run.check("present", 200));
    MillionTxComparison.Run exact =
        new MillionTxComparison.Run(new WrkRun(10, 1, 10, 1, 1, 10, 0), Map.of(404, 10L));
    assertEquals("all 404", exact.check("absent", 404));
  }
}
