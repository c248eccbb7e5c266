package io.bbfindex.deploy;

import io.bbfindex.ingest.testing.RequiredTool;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * An external program the deployment tests run for real (Debian's prometheus, promtool, haproxy,
 * wrk, systemd-analyze). {@code deploy/install-tools.sh} installs the packages, the build runs it
 * before the tests; when a program is still missing the test is skipped with the reason printed,
 * except under {@code CI=true}, where it fails.
 */
record Tool(Path path) {

  /** Searched after the PATH: Debian puts haproxy in /usr/sbin, which a user's PATH may lack. */
  private static final List<String> SYSTEM_DIRS = List.of("/usr/sbin", "/usr/bin", "/sbin");

  /** The program {@code name}, or the test is skipped (failed under {@code CI=true}). */
  static Tool require(String name) {
    Optional<Path> found = find(name);
    if (found.isPresent()) {
      return new Tool(found.get());
    }
    String reason =
        name + " is not installed (run deploy/install-tools.sh as root: Debian packages)";
    RequiredTool.missing(reason);
    return null;
  }

  static Optional<Path> find(String name) {
    String env = System.getenv("PATH");
    List<String> dirs =
        new java.util.ArrayList<>(env == null ? List.of() : List.of(env.split(File.pathSeparator)));
    dirs.addAll(SYSTEM_DIRS);
    for (String d : dirs) {
      Path p = Path.of(d.isEmpty() ? "." : d, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** What one run printed (stdout and stderr together) and how it exited. */
  record Run(int exit, String output) {}

  /** Runs the program with {@code args} to completion (at most 60 s). */
  Run run(String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of(path.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not finish within 60 s");
    }
    return new Run(p.exitValue(), out);
  }
}
