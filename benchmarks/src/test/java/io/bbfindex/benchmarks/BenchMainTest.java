package io.bbfindex.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.harness.CountConverter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The benchmark command line is strict: a misspelt option or a malformed count is refused with a
 * message and exit code 2 before any work starts (once, {@code bench scale --quik} silently ran the
 * full 1.4-billion-key benchmark).
 */
class BenchMainTest {

  /** Runs the command line; {@code [exit code, stderr]}. */
  private static Object[] run(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = BenchMain.commandLine();
    cl.setErr(new PrintWriter(err, true));
    cl.setOut(new PrintWriter(new StringWriter(), true));
    return new Object[] {cl.execute(args), err.toString()};
  }

  @Test
  void anUnknownOptionIsRefusedWithExitCode2() {
    Object[] r = run("scale", "--quik");
    assertEquals(2, r[0]);
    assertTrue(((String) r[1]).contains("Unknown option: '--quik'"), (String) r[1]);
  }

  @Test
  void everySuiteRefusesUnknownOptions() {
    for (String suite : new String[] {"store", "scale", "http", "ingest", "eth"}) {
      assertEquals(2, run(suite, "--no-such-option")[0], suite);
    }
  }

  @Test
  void aMalformedCountIsRefused() {
    Object[] r = run("store", "--records", "ten");
    assertEquals(2, r[0]);
    assertTrue(((String) r[1]).contains("'ten' is not a count"), (String) r[1]);
    assertEquals(2, run("scale", "--keys", "0")[0]);
  }

  @Test
  void noSuiteAndAnUnknownSuiteAreRefused() {
    assertTrue(((String) run()[1]).contains("name a suite"));
    assertEquals(2, run()[0]);
    assertEquals(2, run("filters")[0]);
  }

  /**
   * The launcher script ({@code ./bbf-index}, at the project root) runs a suite from this jar only
   * if its BENCH_SUITES names it: the list there and the suites here are the same.
   */
  @Test
  void theLaunchersSuitesAreBenchMainsSuites() throws IOException {
    Path launcher = Path.of("").toAbsolutePath().getParent().resolve("bbf-index");
    Set<String> listed = new TreeSet<>();
    for (String line : Files.readAllLines(launcher)) {
      Matcher m = Pattern.compile("^BENCH_SUITES=\"([^\"]*)\"").matcher(line);
      if (m.find()) {
        listed.addAll(List.of(m.group(1).strip().split("\\s+")));
      }
    }
    assertEquals(
        new TreeSet<>(BenchMain.commandLine().getSubcommands().keySet()),
        listed,
        "BenchMain's suites vs BENCH_SUITES in " + launcher);
  }

  @Test
  void countsMayCarrySeparators() {
    CountConverter c = new CountConverter();
    assertEquals(1_400_000_000L, c.convert("1,400,000,000"));
    assertEquals(10_000_000L, c.convert("10_000_000"));
  }
}
