package io.bbfindex.benchmarks.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.harness.BenchReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hashed-txindex store benchmark on a tiny generated chain: correct answers, no timing
 * asserted.
 */
class HashedStoreBenchTest {

  @TempDir Path tmp;

  @Test
  void bothPathsFindEveryPositiveAtTheSamePlaceAndTheFilterAnswersNegatives() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("store-hashed-test", new PrintStream(bytes, true, StandardCharsets.UTF_8));
    StoreBench.Config c = new StoreBench.Config(0, 2_000, 1_000_000L, 1, 0x4A5E_D7E5L, true);
    HashedStoreBench.Result r = HashedStoreBench.run(c, 20_000, report, tmp);

    assertEquals(20_000, r.transactions());
    assertEquals(2_000, r.negatives());
    assertTrue(r.negAbsentByFilter() > 0.95 * r.negatives(), "summary FPR far above 1 %: " + r);
    assertTrue(
        r.positives() >= 1_900,
        "positives sampled evenly from 20,000 transactions: " + r.positives());
    assertEquals(r.positives(), r.posAgree(), "the product and Core's way agree on every positive");
    for (double v : new double[] {r.productNeg(), r.coreNeg(), r.productPos(), r.corePos()}) {
      assertTrue(v > 0 && Double.isFinite(v), "rate: " + r);
    }
    report.finish(null);
    String out = bytes.toString(StandardCharsets.UTF_8);
    for (String key :
        new String[] {
          "hashed_records",
          "hashed_neg_speedup_over_core_path",
          "hashed_pos_speedup_over_core_path",
          "hashed_neg_lookups_per_second",
          "hashed_pos_lookups_per_second"
        }) {
      assertTrue(out.contains("summary: " + key + " "), key);
    }
  }
}
