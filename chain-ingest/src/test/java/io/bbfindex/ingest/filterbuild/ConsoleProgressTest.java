package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The progress line: rate and ETA, at most one line per second of the (fake) clock. */
class ConsoleProgressTest {

  @Test
  void printsAtMostOncePerSecondWithRateAndEta() {
    long[] now = {0};
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ConsoleProgress p =
        new ConsoleProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8), () -> now[0]);
    p.progress("scan", 0, 10_000_000);
    for (int i = 1; i <= 40; i++) {
      now[0] = i * 100_000_000L; // 0.1 s steps, 1 M records per second
      p.progress("scan", i * 100_000L, 10_000_000);
    }
    p.phaseDone("scan", 4_000_000);
    String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
    assertEquals(5, lines.length, String.join("\n", lines)); // at 1, 2, 3, 4 s + done
    assertEquals("scan: 1,000,000 / 10,000,000 (10.0%)  1.00 M/s  ETA 9s", lines[0]);
    assertTrue(lines[4].startsWith("scan: done, 4,000,000 in 4s"), lines[4]);
  }

  @Test
  void formatsLongEtasAndUnknownTotals() {
    assertEquals("s: 5,000  1.0 k/s", ConsoleProgress.line("s", 5_000, -1, 5_000_000_000L));
    assertTrue(
        ConsoleProgress.line("s", 1_000_000, 1_400_000_000, 1_000_000_000L)
            .endsWith("ETA 23m 19s"));
    assertEquals("2h 05m", ConsoleProgress.duration(7_500));
  }
}
