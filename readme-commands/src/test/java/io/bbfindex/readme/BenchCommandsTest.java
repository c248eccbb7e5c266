package io.bbfindex.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's benchmark commands from a fresh copy of the tree (no build output in it: the
 * launcher builds what each suite needs, the JMH jar included): every suite's {@code --help}, then
 * one small benchmark run to its summary lines. The suites are the README's and must be the
 * launcher's, with {@code all} (every suite in turn) beside them.
 */
class BenchCommandsTest {
  private static final Pattern SUITE = Pattern.compile("^\\./bbf-index bench ([a-z-]+)");

  @TempDir Path tmp;

  @Test
  void everySuitesHelpAndOneRunFromAFreshCopy() throws Exception {
    Set<String> suites = new LinkedHashSet<>();
    for (String c : Readme.read(Launcher.root().resolve("README.md")).launcherCommands()) {
      Matcher m = SUITE.matcher(c);
      if (m.find()) {
        suites.add(m.group(1));
      }
    }
    Set<String> launcher = launcherSuites();
    launcher.add("all"); // the launcher's own: every suite in turn
    assertEquals(launcher, suites, "the README's bench suites (and all) vs the launcher's");

    Path fresh = tmp.resolve("bbf-index");
    copySources(Launcher.root(), fresh);
    for (String suite : suites) {
      String command = "./bbf-index bench " + suite + " --help";
      Launcher.Result r = Launcher.run(fresh, Map.of(), Duration.ofMinutes(20), command);
      assertEquals(0, r.exitCode(), command + " ->\n" + r.output());
      assertTrue(
          r.output().toLowerCase(Locale.ROOT).contains("usage"), command + " ->\n" + r.output());
    }
    String run = "./bbf-index bench store --quick --records 100000 --hashed-records 100000";
    Launcher.Result r = Launcher.run(fresh, Map.of(), Duration.ofMinutes(10), run);
    assertEquals(0, r.exitCode(), run + " ->\n" + r.output());
    assertTrue(r.output().contains("\nsummary: "), run + " printed no summary:\n" + r.output());
  }

  /** BENCH_SUITES and JMH_SUITES of the launcher script. */
  private static Set<String> launcherSuites() throws IOException {
    Set<String> out = new LinkedHashSet<>();
    for (String line : Files.readAllLines(Launcher.root().resolve("bbf-index"))) {
      Matcher m = Pattern.compile("^(BENCH|JMH)_SUITES=\"([^\"]*)\"").matcher(line);
      if (m.find()) {
        out.addAll(List.of(m.group(2).split(" ")));
      }
    }
    return out;
  }

  /** The tree as a clone has it: no target/, no data/, no results, no .git. */
  private static void copySources(Path from, Path to) throws IOException {
    Set<String> skipped = Set.of("target", ".git", "data", "bench-results", ".cifuzz-corpus");
    Files.walkFileTree(
        from,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            if (!dir.equals(from) && skipped.contains(dir.getFileName().toString())) {
              return FileVisitResult.SKIP_SUBTREE;
            }
            Files.createDirectories(to.resolve(from.relativize(dir).toString()));
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.copy(
                file,
                to.resolve(from.relativize(file).toString()),
                StandardCopyOption.COPY_ATTRIBUTES);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
