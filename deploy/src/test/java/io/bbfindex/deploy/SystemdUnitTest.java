package io.bbfindex.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped systemd units ({@code deploy/systemd/}): {@code systemd-analyze verify} finds nothing
 * to say about them, {@code systemd-analyze security} rates their sandbox at most 2.0 ("OK"), and
 * the sandbox fits the command line: the {@code --datadir} is read-only, the store and the scratch
 * directories are the only writable places.
 */
class SystemdUnitTest {

  private static final String JAVA_IN_UNITS = "/usr/bin/java";
  private static final double MAX_EXPOSURE = 2.0;
  private static final Pattern EXPOSURE =
      Pattern.compile("Overall exposure level for \\S+: ([0-9.]+)");

  @TempDir Path tmp;

  @Test
  void unitsVerifyCleanlyAndTheirSandboxRatesOk() throws Exception {
    Tool analyze = Tool.require("systemd-analyze");
    List<Path> units = new ArrayList<>();
    // the replica template as one of its instances, and the store build
    units.add(installed("bbf-index@.service", "bbf-index@8081.service"));
    units.add(installed("bbf-index-ingest.service", "bbf-index-ingest.service"));
    for (Path unit : units) {
      Tool.Run verify = analyze.run("verify", unit.toString());
      assertEquals(0, verify.exit(), unit + ": " + verify.output());
      assertEquals("", verify.output().strip(), "systemd-analyze verify warns about " + unit);

      Tool.Run security = analyze.run("security", "--offline=true", unit.toString());
      Matcher m = EXPOSURE.matcher(security.output());
      assertTrue(m.find(), "no exposure level in: " + security.output());
      double exposure = Double.parseDouble(m.group(1));
      System.out.println(unit.getFileName() + ": systemd-analyze security exposure " + exposure);
      assertTrue(
          exposure <= MAX_EXPOSURE, unit + " exposure " + exposure + ":\n" + security.output());
      for (String setting : List.of("NoNewPrivileges=", "ProtectSystem=", "ProtectHome=")) {
        assertTrue(
            security.output().lines().anyMatch(l -> l.startsWith("✓ " + setting)),
            setting + " is not rated safe:\n" + security.output());
      }
    }
  }

  @Test
  void theDatadirIsReadOnlyAndOnlyTheStoreIsWritable() throws IOException {
    Path unit = Deploy.dir().resolve("systemd/bbf-index@.service");
    List<String> lines = Files.readAllLines(unit);
    List<String> exec = List.of(value(lines, "ExecStart").split("\\s+"));
    String datadir = exec.get(exec.indexOf("--datadir") + 1);
    String filters = exec.get(exec.indexOf("--filters") + 1);
    String work = exec.get(exec.indexOf("--work") + 1);
    assertEquals("strict", value(lines, "ProtectSystem"), "the whole file system is read-only");
    assertEquals(datadir, value(lines, "ReadOnlyPaths"), "the datadir is explicitly read-only");
    List<String> writable = List.of(value(lines, "ReadWritePaths").split("\\s+"));
    assertEquals(1, writable.size(), "one writable place: " + writable);
    assertTrue(filters.startsWith(writable.getFirst() + "/"), filters + " not under " + writable);
    assertTrue(work.startsWith(writable.getFirst() + "/"), work + " not under " + writable);
    assertTrue(!datadir.startsWith(writable.getFirst()), "the datadir must not be writable");
    assertEquals("yes", value(lines, "NoNewPrivileges"));
    assertEquals("", value(lines, "CapabilityBoundingSet"), "no capabilities");
  }

  /**
   * The unit as it would be installed, with the JVM of this test where the unit names Debian's
   * {@code /usr/bin/java} ({@code verify} checks that the command exists).
   */
  private Path installed(String shipped, String as) throws IOException {
    String text = Files.readString(Deploy.dir().resolve("systemd").resolve(shipped));
    assertTrue(
        text.contains("ExecStart=" + JAVA_IN_UNITS + " "), shipped + " runs " + JAVA_IN_UNITS);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toRealPath().toString();
    return Files.writeString(tmp.resolve(as), text.replace(JAVA_IN_UNITS, java));
  }

  private static String value(List<String> lines, String key) {
    return lines.stream()
        .filter(l -> l.startsWith(key + "="))
        .map(l -> l.substring(key.length() + 1).strip())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + key + "= in the unit"));
  }
}
