package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
  @Test
  void showsDoneTotalRateAndEta() {
    ProgressLine p = new ProgressLine(new PrintStream(new ByteArrayOutputStream()), "ingest", "txids", Duration.ofSeconds(1));
    // 250 of 1,000 in 10 s: 25/s, 750 left at that rate = 30 s.
    assertEquals("ingest: 250/1,000 txids (25.0%), 25 txids/s, ETA 0:30", p.format(250, 1_000, 10_000_000_000L));
    assertEquals("ingest: 250 txids, 25 txids/s", p.format(250, 0, 10_000_000_000L));
    assertEquals("ingest: 1/2 txids (50.0%), 0 txids/s, ETA 1:00:00", p.format(1, 2, 3_600_000_000_000L));
  }

  @Test
  void printsNothingBeforeTheInterval() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ProgressLine p = new ProgressLine(new PrintStream(out), "x", "u", Duration.ofHours(1));
    p.update(1, 2);
    assertEquals("", out.toString());
    p.finish(2);
    assertEquals(1, out.toString().lines().count());
  }
}
