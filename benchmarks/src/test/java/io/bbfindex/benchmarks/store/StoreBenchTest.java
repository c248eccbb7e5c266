package io.bbfindex.benchmarks.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store benchmark's core on a tiny Core-format txindex: correct answers, no timing asserted.
 */
class StoreBenchTest {

  @TempDir Path tmp;

  @Test
  void negativesCostNoLevelDbReadUnlessTheFilterSaysMaybeAndPositivesAreFoundExactly()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("store-test", new PrintStream(bytes, true, StandardCharsets.UTF_8));
    StoreBench.Config c = new StoreBench.Config(30_000, 3_000, 1_000_000L, 1, 0x7E57L, true);
    StoreBench.Result r = StoreBench.run(c, report, tmp, ProgressListener.NONE);

    assertEquals(3_000, r.negatives());
    // every negative the filter let through cost exactly one LevelDB read; the rest cost none
    assertEquals(r.negatives() - r.negAbsentByFilter(), r.negLeveldbReads());
    assertTrue(r.negAbsentByFilter() > 0.95 * r.negatives(), "summary FPR far above 1 %: " + r);
    assertEquals(
        r.positives(), r.posFoundExact(), "every sampled positive found at its exact location");
    assertTrue(
        r.positives() >= 2_900, "positives sampled evenly from 30,000 rows: " + r.positives());
    for (double v :
        new double[] {
          r.ingestRecordsPerSecond(),
          r.productNegPerSecond(),
          r.plainNegPerSecond(),
          r.productPosPerSecond(),
          r.plainPosPerSecond()
        }) {
      assertTrue(v > 0 && Double.isFinite(v), "rate: " + r);
    }
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(
        out.contains("no filter policy"),
        "the output states leveldbjni's missing Bloom filter policy");
    report.finish(null);
    for (String key :
        new String[] {
          "neg_speedup_over_leveldb", "pos_overhead_over_leveldb", "ingest_records_per_second"
        }) {
      assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("summary: " + key + " "), key);
    }
  }
}
