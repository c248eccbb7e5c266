package io.bbfindex.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every command of the README is run by a test of this module, and CI runs the README's test. */
class ReadmeCoverageTest {

  @Test
  void everyLauncherCommandOfTheReadmeIsRunByATestHere() throws IOException {
    Readme readme = Readme.read(Launcher.root().resolve("README.md"));
    List<String> notRun =
        readme.launcherCommands().stream()
            .filter(
                c -> !ReadmeCommands.ALL.contains(c) && !c.startsWith(ReadmeCommands.BENCH_PREFIX))
            .toList();
    assertEquals(List.of(), notRun, "README commands no test of readme-commands runs");
    for (String c : ReadmeCommands.ALL) {
      assertTrue(readme.launcherCommands().contains(c), "the README no longer shows: " + c);
    }
  }

  @Test
  void everyConsoleExampleIsACurlTheDemoOrEthTestsRun() throws IOException {
    Readme readme = Readme.read(Launcher.root().resolve("README.md"));
    List<String> other =
        readme.examples().stream()
            .map(Readme.ConsoleExample::command)
            .filter(c -> !c.startsWith("curl "))
            .toList();
    assertEquals(List.of(), other, "console examples that are not curl lines");
    assertTrue(readme.examples().size() >= 10, "the README's examples: " + readme.examples());
  }

  @Test
  void ciRunsTheReadmesTestCommand() throws IOException {
    String ci = Files.readString(Launcher.root().resolve(".ci/run"));
    assertTrue(ci.lines().anyMatch(l -> l.strip().equals(ReadmeCommands.TEST)), ci);
  }
}
