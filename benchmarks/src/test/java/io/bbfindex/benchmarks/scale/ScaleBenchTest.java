package io.bbfindex.benchmarks.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.synthetic.SyntheticKeys;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale benchmark's core on a tiny input (56,000 txids, 1 and 56 files, start-up probe in a
 * fresh JVM): sane figures, no timing asserted.
 */
class ScaleBenchTest {

  @TempDir Path tmp;

  @Test
  void tinyStoresAnswerTheirTxidsAndReportSaneFigures() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("scale-test", new PrintStream(bytes, true, StandardCharsets.UTF_8));
    ScaleBench.Config c =
        new ScaleBench.Config(
            56_000, 56, new int[] {1, 56}, 4_096, 16, 1, 1_000_000L, 1, 0x5CA1EL, true);
    ScaleBench.Result r = ScaleBench.run(c, report, tmp, ProgressListener.NONE);

    assertTrue(
        r.allInsertedFound(),
        "every sampled inserted txid is a 'maybe' for the summary and its file");
    assertEquals(2, r.steps().size());
    assertEquals(1, r.steps().get(0).files());
    assertEquals(56, r.steps().get(1).files());
    for (ScaleBench.Step s : r.steps()) {
      assertTrue(s.negNs() > 0 && Double.isFinite(s.negNs()), "ns/lookup: " + s);
      assertTrue(s.negFpr() < 0.05, "the summary is sized for 1 %: " + s);
    }
    // the default store: the summary (eq. 3's 10.1 bits at 1 %, 1.04x headroom: 1.31 bytes per
    // txid) and the block-hash filter, plus a 56-line manifest over only 56,000 txids
    assertTrue(r.bytesPerKey() > 1.3 && r.bytesPerKey() < 2, "bytes per txid: " + r.bytesPerKey());
    // the start-up probe ran in a fresh JVM, opened the 56-file store and listened
    assertTrue(
        r.startupSeconds() > 0 && r.startupSeconds() < 120,
        "start-up seconds: " + r.startupSeconds());
    String probes = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(probes.contains("filters=2 "), "default store: summary + block hashes only");
    assertTrue(probes.contains("filters=58 "), "per-file filters on: + 56 files");
    report.finish(null);
    String out = bytes.toString(StandardCharsets.UTF_8);
    // the lookup's growth is gone (it probes only the summary); the file count's cost replaces it
    assertFalse(out.contains("neg_lookup_growth"), "the old growth line is gone");
    assertTrue(probes.contains("filters=3 "), "per-file filters on, 1 file: + 1 file filter");
    for (String key :
        new String[] {
          "neg_lookup_ns_files_1 ",
          "neg_lookup_ns_files_56 ",
          "startup_growth_1_to_56_files ",
          "rss_growth_1_to_56_files ",
          "startup_growth_1_to_56_files_with_file_filters ",
          "rss_growth_1_to_56_files_with_file_filters ",
          "build_seconds ",
          "filter_bytes_per_key ",
          "summary_bytes_per_key ",
          "rss_after_start_mib ",
          "startup_seconds_no_class_archive ",
          "rss_after_start_mib_with_file_filters ",
          "own_index_bytes_per_txid ",
          "own_index_build_keys_per_cpu_s ",
          "own_index_pos_lookup_ns ",
          "own_index_pos_lookup_cold_us "
        }) {
      assertTrue(out.contains("summary: " + key), key);
    }
  }

  /**
   * The own index phase alone: every sampled txid's value is its exact synthetic position, values
   * are mainnet's 40 bits (5,600 files, offsets up to 128 MiB), and the index file is gone after.
   */
  @Test
  void theOwnIndexPhaseAnswersEverySampledTxidExactly() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("scale-own-test", new PrintStream(bytes, true, StandardCharsets.UTF_8));
    ScaleBench.Config c =
        new ScaleBench.Config(
            300_000, 5_600, new int[] {5_600}, 4_096, 16, 1, 1_000_000L, 0, 0x5CA1EL, true);
    OwnIndexScale.Result r = ScaleBench.ownIndex(c, report, tmp);
    assertTrue(r.allFound(), "every sampled inserted txid reads back its position");
    assertEquals(300_000, r.keys());
    // one shard of 300,000 keys at 40 bits: 1.125 slots a key, 5.6 bytes; a small shard a little
    // more
    assertTrue(r.bytesPerTxid() > 5 && r.bytesPerTxid() < 6.5, "bytes a txid: " + r.bytesPerTxid());
    assertTrue(r.warmNs() > 0 && r.coldMedianUs() > 0, r.toString());
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("posix_fadvise"), out);
    try (java.util.stream.Stream<Path> left = java.nio.file.Files.walk(tmp)) {
      assertEquals(
          List.of(),
          left.filter(java.nio.file.Files::isRegularFile).toList(),
          "index and spill deleted");
    }
  }

  @Test
  void fileOfAgreesWithTheRanges() {
    long keys = 1_000_003;
    for (int files : new int[] {1, 7, 56, 5_600}) {
      for (int f = 0; f < files; f += Math.max(1, files / 13)) {
        long lo = SyntheticKeys.rangeStart(keys, files, f);
        long hi = SyntheticKeys.rangeStart(keys, files, f + 1);
        if (hi > lo) {
          assertEquals(f, ScaleBench.fileOf(lo, keys, files));
          assertEquals(f, ScaleBench.fileOf(hi - 1, keys, files));
        }
      }
    }
  }

  @Test
  void startUpProbeLineCpuIsSummed() {
    assertEquals(
        2.75,
        ScaleBench.cpuSeconds(
            "jvm_to_main_ms=85 open_ms=2501 [cpu 1260] describe_ms=583 [cpu 310] http_start_ms=1523"
                + " [cpu 1180] filters=5602"),
        1e-9);
  }
}
