package io.bbfindex.benchmarks.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.BenchMain;
import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.ingest.testing.RequiredTool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bench vs-core in a tiny configuration (1-second wrk runs, one round) on the hashed-index fixture:
 * a real bitcoind ({@code $BITCOIND}) and a real {@code serve}, both checked to answer a present
 * txid 200 and an absent one 404 before timing, every timed answer checked by status, and the
 * summary ratios printed with positive values. No timing target asserted. Skipped with a printed
 * reason when wrk or bitcoind is missing, failed then under {@code CI=true}.
 */
class VsCoreBenchTest {

  @TempDir Path tmp;

  @Test
  void bothServersAnswerCorrectlyAndTheRatiosArePrinted() throws Exception {
    boolean tools =
        WrkRun.findWrk().isPresent()
            && CoreRestNode.binary(VsCoreBench.Index.HASHED.bitcoindVariable).isPresent();
    if (!tools) {
      RequiredTool.missing("wrk (apt-get install wrk) or $BITCOIND (a bitcoind) is missing");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("vs-core-test", new PrintStream(out, true, StandardCharsets.UTF_8));
    VsCoreBench.run(
        new VsCoreBench.Config(1, 1, 1, 1, 4, true, List.of(VsCoreBench.Index.HASHED), null),
        report,
        tmp);
    report.finish(null);
    String text = out.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertTrue(
        text.contains("hashed: both servers answer a present txid 200 and an absent one 404"),
        text);
    for (String key : List.of("neg_rps_over_core_rest", "pos_rps_over_core_rest")) {
      String line =
          text.lines()
              .filter(l -> l.startsWith("summary: " + key + " "))
              .findFirst()
              .orElseThrow(() -> new AssertionError(key + " missing:\n" + text));
      double v = Double.parseDouble(line.substring(("summary: " + key + " ").length()));
      assertTrue(v > 0, line);
    }
    assertTrue(text.contains("absent (core rest)") && text.contains("all 404"), text);
  }

  /**
   * {@code --index own}: bbf-index serves from its own txid index (it says so), answers as Core
   * does on its hashed txindex of the same data, and the ratios are printed.
   */
  @Test
  void onItsOwnIndexBbfIndexAnswersAsCoreDoes() throws Exception {
    boolean tools =
        WrkRun.findWrk().isPresent()
            && CoreRestNode.binary(VsCoreBench.Index.OWN.bitcoindVariable).isPresent();
    if (!tools) {
      RequiredTool.missing("wrk (apt-get install wrk) or $BITCOIND (a bitcoind) is missing");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BenchReport report =
        new BenchReport("vs-core-own-test", new PrintStream(out, true, StandardCharsets.UTF_8));
    VsCoreBench.run(
        new VsCoreBench.Config(1, 1, 1, 1, 4, true, List.of(VsCoreBench.Index.OWN), null),
        report,
        tmp);
    report.finish(null);
    String text = out.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertTrue(text.contains("own: serve says") && text.contains("own txid index built"), text);
    assertTrue(
        text.contains("own: both servers answer a present txid 200 and an absent one 404"), text);
    assertTrue(text.contains("present (bbf-index)") && text.contains("all 200"), text);
    assertTrue(text.contains("summary: neg_rps_over_core_rest "), text);
  }

  @Test
  void requestListsAskBothServersForTheSameIds() throws IOException {
    List<String> present = VsCoreBench.Index.HASHED.present();
    assertTrue(present.size() > 4_000, "active txids of the hashed fixture: " + present.size());
    Map<VsCoreBench.Target, Path> files = VsCoreBench.requestFiles(tmp, present, new Random(3));
    List<String> absentBbf = Files.readAllLines(files.get(VsCoreBench.TARGETS.get(0)));
    List<String> absentCore = Files.readAllLines(files.get(VsCoreBench.TARGETS.get(1)));
    assertEquals(20_000, absentBbf.size());
    assertEquals(
        absentBbf.stream().map(l -> l.substring("/v1/tx/".length())).toList(),
        absentCore.stream()
            .map(l -> l.substring("/rest/tx/".length(), l.length() - ".bin".length()))
            .toList());
    assertTrue(
        absentBbf.stream().map(l -> l.substring("/v1/tx/".length())).noneMatch(present::contains));
    List<String> presentCore = Files.readAllLines(files.get(VsCoreBench.TARGETS.get(3)));
    assertTrue(presentCore.stream().allMatch(l -> l.matches("/rest/tx/[0-9a-f]{64}\\.bin")));
  }

  @Test
  void rejectsAnUnknownIndex() {
    assertEquals(2, BenchMain.execute("vs-core", "--index", "ldb"));
    assertThrows(IllegalArgumentException.class, () -> VsCoreBench.Selection.valueOf("x"));
  }
}
