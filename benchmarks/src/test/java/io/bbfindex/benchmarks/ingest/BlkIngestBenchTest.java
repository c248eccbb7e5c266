package io.bbfindex.benchmarks.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The block-data ingest benchmark on a few MiB: every generated transaction reaches the filters
 * (its pass checks the per-file counts), both rates are measured, and {@code bench ingest} prints
 * the three summary lines beside the 't'-scan rate. No timing is asserted.
 */
class BlkIngestBenchTest {

  @TempDir Path tmp;

  @Test
  void measuresBothRatesOverTheSameBlkBytes() throws Exception {
    List<String> lines = new ArrayList<>();
    BlkIngestBench.Result r =
        BlkIngestBench.measure(tmp.resolve("chain"), 3L << 20, 1L << 20, 2, 2, 7, lines::add);
    assertTrue(r.blkBytes() >= 3L << 20, "generated up to the requested size: " + r);
    assertTrue(r.files() >= 2, "1 MiB files: " + r);
    assertTrue(r.transactions() > 3_000, "mainnet-shaped transactions, about 500 bytes each: " + r);
    for (double v :
        new double[] {
          r.ingestMbPerSecond(),
          r.sha256MbPerSecond(),
          r.ratio(),
          r.ingestMbPerCpuSecond(),
          r.sha256MbPerCpuSecond(),
          r.withOwnIndexMbPerSecond(),
          r.ownIndexCost()
        }) {
      assertTrue(v > 0 && Double.isFinite(v), "rate: " + r);
    }
    assertEquals(
        2,
        lines.stream().filter(l -> l.matches("round \\d: blk ingest.*")).count(),
        String.join("\n", lines));
    assertEquals(
        2,
        lines.stream().filter(l -> l.contains("with the own txid index kept")).count(),
        String.join("\n", lines));
  }

  @Test
  void benchIngestPrintsTheBlockDataSummaryBesideTheScanRate() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream saved = System.out;
    int exit;
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      exit =
          new CommandLine(new IngestThroughputBench())
              .execute(
                  "--dir",
                  tmp.resolve("txindex").toString(),
                  "--records",
                  "20000",
                  "--scans",
                  "1",
                  "--blk-mib",
                  "3");
    } finally {
      System.setOut(saved);
    }
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, exit, out);
    for (String key :
        new String[] {
          "ingest_records_per_second",
          "blk_ingest_mb_per_second",
          "sha256_mb_per_second",
          "blk_ingest_over_sha256_same_bytes",
          "blk_ingest_over_sha256_per_cpu_second"
        }) {
      assertTrue(out.contains("summary: " + key + " "), key + " in:\n" + out);
    }
  }
}
