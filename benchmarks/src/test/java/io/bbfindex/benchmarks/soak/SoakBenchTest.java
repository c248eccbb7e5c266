package io.bbfindex.benchmarks.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.BenchMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A smoke run of the soak harness (a few seconds, not the 10-minute soak): a real server over the
 * demo datadir in its own JVM, the mixed traffic with every answer checked, the resource samples
 * and the summary lines. The pass criteria themselves (0 errors, RSS growth) are the harness's:
 * asserted here only for errors, since RSS over 3 s says nothing.
 */
class SoakBenchTest {

  @Test
  void aShortSoakChecksEveryAnswerAndPrintsTheResourceSummary() {
    PrintStream stdout = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit;
    try (PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      exit =
          BenchMain.execute(
              "soak", "--no-follow", "--seconds", "3", "--warmup", "2", "--clients", "4");
    } finally {
      System.setOut(stdout);
    }
    String report = out.toString(StandardCharsets.UTF_8);
    System.out.print(report);
    assertTrue(report.contains("summary: errors 0"), report);
    for (String key :
        new String[] {
          "requests",
          "rss_growth_pct",
          "heap_end_mib",
          "direct_end_mib",
          "netty_direct_end_mib",
          "open_files_end"
        }) {
      assertTrue(report.contains("summary: " + key + " "), key + " missing:\n" + report);
    }
    assertTrue(report.contains("t=3s"), "a sample at the end of the run:\n" + report);
    long requests =
        Long.parseLong(
            report
                .lines()
                .filter(l -> l.startsWith("summary: requests "))
                .findFirst()
                .orElseThrow()
                .substring("summary: requests ".length())
                .replace(",", "")
                .split("\\.")[0]);
    assertTrue(requests > 0, "the clients ran: " + requests + " requests");
    assertTrue(exit == 0 || exit == 1, "exit " + exit);
    assertEquals(0, report.lines().filter(l -> l.startsWith("error: ")).count(), report);
  }

  @Test
  void rejectsANonPositiveDuration() {
    assertEquals(2, BenchMain.execute("soak", "--seconds", "0"));
  }
}
