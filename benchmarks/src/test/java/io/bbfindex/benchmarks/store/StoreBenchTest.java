package io.bbfindex.benchmarks.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.testing.RequiredTool;
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
          "neg_speedup_over_leveldb",
          "pos_overhead_over_leveldb",
          "ingest_records_per_second",
          "neg_ns_summary_probe",
          "neg_ns_filter_no_through_lookup_service",
          "neg_ns_false_maybe_share",
          "neg_observed_fpr"
        }) {
      assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("summary: " + key + " "), key);
    }
  }

  @Test
  void theSameRecordsInALevelDbWithCoresBloomPolicyAnswerEveryPositive() throws Exception {
    if (NativeLevelDb.library().isEmpty()) {
      RequiredTool.missing("Debian's libleveldb1d is not installed (deploy/install-tools.sh)");
      return;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("store-test", new PrintStream(bytes, true, StandardCharsets.UTF_8));
    // a positive a get does not find fails the timed pass: the copy holds every record
    StoreBench.run(
        new StoreBench.Config(30_000, 3_000, 1_000_000L, 1, 0x7E58L, true),
        report,
        tmp,
        ProgressListener.NONE);
    report.finish(null);
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("Bloom, 10 bits a key (Core's)"), out);
    // every txid read through LevelDB 1.23 decodes to leveldbjni's row (checked before timing)
    assertTrue(out.contains("LevelDB 1.23, Core's Bloom policy"), out);
    for (String key :
        new String[] {
          "leveldb_bloom_gets_per_second_neg",
          "leveldb_bloom_over_no_filter_neg",
          "neg_speedup_over_leveldb_bloom",
          "neg_ns_lookup_service_leveldbjni",
          "neg_ns_lookup_service_leveldb123",
          "neg_ns_lookup_service_leveldb123_bloom"
        }) {
      String line =
          out.lines()
              .filter(l -> l.startsWith("summary: " + key + " "))
              .findFirst()
              .orElseThrow(() -> new AssertionError(key + " missing:\n" + out));
      assertTrue(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) > 0, line);
    }
  }
}
