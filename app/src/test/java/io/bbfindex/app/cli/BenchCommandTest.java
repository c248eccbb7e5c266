package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bbfindex.app.core.CoreChainAccess;
import io.bbfindex.app.demo.EmbeddedDemo;
import io.bbfindex.app.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {
  /** A real wrk 4.1.0 report (--latency), as printed on this machine. */
  static final String REPORT = """
      Running 10s test @ http://127.0.0.1:18081/livez
        2 threads and 64 connections
        Thread Stats   Avg      Stdev     Max   +/- Stdev
          Latency     2.62ms    7.82ms  91.69ms   95.70%
          Req/Sec    33.97k     6.04k   42.56k    79.50%
        Latency Distribution
           50%  464.00us
           75%    1.05ms
           90%    3.61ms
           99%   41.73ms
        676223 requests in 10.01s, 65.13MB read
        Non-2xx or 3xx responses: 676223
      Requests/sec:  67578.73
      Transfer/sec:      6.51MB
      """;

  @TempDir Path home;

  @Test
  void parsesRequestsPerSecondAndP99InMilliseconds() throws IOException {
    assertEquals(67578.73, BenchCommand.requestsPerSecond(REPORT));
    assertEquals(41.73, BenchCommand.p99Millis(REPORT));
    assertEquals(0.464, BenchCommand.p99Millis(REPORT.replace("41.73ms", "464.00us")));
    assertEquals(1500, BenchCommand.p99Millis(REPORT.replace("41.73ms", "1.50s")));
    assertThrows(IOException.class, () -> BenchCommand.requestsPerSecond("wrk: connection refused"));
  }

  @Test
  void mediansAreOrderIndependent() {
    assertEquals(2, BenchCommand.median(new double[] {3, 1, 2}));
    assertEquals(2.5, BenchCommand.median(new double[] {4, 1, 3, 2}));
  }

  @Test
  void benchmarksTheEmbeddedDemoWithWrk() throws Exception {
    assumeTrue(wrkInstalled(), "wrk is not installed");
    Files.createDirectories(home.resolve("fixtures"));
    Files.createSymbolicLink(home.resolve(EmbeddedDemo.ARCHIVE), Fixtures.dir().resolve(Fixtures.MAINNET + ".tar.gz"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Cli.run(new String[] {"bench", "http", "--duration", "1", "--rounds", "1", "--connections", "4", "--threads", "1"},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
        new CoreChainAccess(), home);
    String printed = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    assertTrue(printed.contains("livez") && printed.contains("tx negative") && printed.contains("tx positive"), printed);
    assertTrue(printed.matches("(?s).*negative lookups reach [0-9.]+% of /livez.*"), printed);
    assertTrue(printed.matches("(?s).*\\nsummary: http_negative_vs_livez_pct [0-9.]+\\n$"), printed);
    assertTrue(printed.contains("summary: http_tx_negative_rps "), printed);
    assertTrue(!err.toString(StandardCharsets.UTF_8).contains("Socket errors"), err.toString(StandardCharsets.UTF_8));
  }

  private static boolean wrkInstalled() {
    try {
      return new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start().waitFor() >= 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }
}
