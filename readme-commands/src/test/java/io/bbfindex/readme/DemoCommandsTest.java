package io.bbfindex.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, {@code ./bbf-index serve}, and every console example of the README
 * against it, run with curl as written (port aside): each must succeed, and print what the README
 * shows where it shows an output. The curl lines the demo prints at start are run too.
 */
class DemoCommandsTest {
  @TempDir Path cwd;

  @Test
  void theDemoServesEveryExampleOfTheReadmeAsShown() throws Exception {
    Readme readme = Readme.read(Launcher.root().resolve("README.md"));
    try (Launcher.Server demo =
        Launcher.serve(
            Launcher.root(),
            Map.of(),
            Duration.ofMinutes(10),
            Launcher.onFreePort(ReadmeCommands.DEMO))) {
      int run = 0;
      for (Readme.ConsoleExample e : readme.examples()) {
        if (e.command().contains("/v1/eth/")) {
          continue; // EthCommandTest, beside a node
        }
        String command = Launcher.onServer(e.command(), demo.baseUrl());
        Launcher.Result r = Launcher.run(cwd, Map.of(), Duration.ofSeconds(30), command);
        assertEquals(0, r.exitCode(), command + " ->\n" + r.output());
        assertTrue(!r.output().isBlank() || command.contains(" -o "), command + " printed nothing");
        if (!e.shownOutput().isEmpty()) {
          assertEquals(
              String.join("\n", e.shownOutput()).strip(),
              r.output().strip(),
              "the README shows another output for: " + e.command());
        }
        run++;
      }
      assertTrue(run >= 10, "examples run: " + run);
      List<String> printed =
          demo.output().lines().map(String::strip).filter(l -> l.startsWith("curl ")).toList();
      assertTrue(printed.size() >= 5, "the demo prints its curl lines:\n" + demo.output());
      for (String command : printed) {
        Launcher.Result r = Launcher.run(cwd, Map.of(), Duration.ofSeconds(30), command);
        assertEquals(0, r.exitCode(), command + " ->\n" + r.output());
        assertTrue(!r.output().isBlank(), command + " printed nothing");
      }
    }
  }

  @Test
  void everyCommandHasHelpAndABadArgumentIsExitCodeTwo() throws Exception {
    for (String command :
        List.of("./bbf-index --help", "./bbf-index serve --help", "./bbf-index ingest --help")) {
      Launcher.Result r = Launcher.run(Launcher.root(), Map.of(), Duration.ofMinutes(10), command);
      assertEquals(0, r.exitCode(), command + " ->\n" + r.output());
      assertTrue(r.output().contains("usage: bbf-index"), command + " ->\n" + r.output());
    }
    Launcher.Result bad =
        Launcher.run(
            Launcher.root(), Map.of(), Duration.ofMinutes(2), "./bbf-index serve --no-such-option");
    assertEquals(2, bad.exitCode(), bad.output());
  }
}
