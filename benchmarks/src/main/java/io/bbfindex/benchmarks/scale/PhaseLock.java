package io.bbfindex.benchmarks.scale;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The machine's shared benchmark lock held for part of a run: {@code flock(1)} on the lock file, by
 * a child process that holds it until its standard input closes. The build of the full scale run
 * takes long and may share the cores; the phases whose times are the figures (lookups, start-ups)
 * should not. It must be flock(1) itself: Java's {@code FileChannel.lock} takes a POSIX record
 * lock, which Linux keeps apart from flock(2) locks, so it would exclude nobody.
 */
final class PhaseLock implements AutoCloseable {

  private final Process holder;

  private PhaseLock(Process holder) {
    this.holder = holder;
  }

  /** Waits until {@code lockFile} is locked for this run (it may take minutes: others' runs). */
  static PhaseLock acquire(Path lockFile) throws IOException {
    Process p =
        new ProcessBuilder(
                List.of(
                    "flock", lockFile.toString(), "sh", "-c", "echo locked; exec cat >/dev/null"))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (!"locked".equals(line)) {
      p.destroy();
      throw new IOException("could not lock " + lockFile + " with flock(1): " + line);
    }
    return new PhaseLock(p);
  }

  /** The load averages (1, 5, 15 minutes), as {@code /proc/loadavg} has them. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "n/a";
    }
  }

  /** Releases the lock: the holder's input closes, it exits, the lock goes with it. */
  @Override
  public void close() throws IOException {
    holder.getOutputStream().close();
    try {
      if (!holder.waitFor(10, TimeUnit.SECONDS)) {
        holder.destroyForcibly();
      }
    } catch (InterruptedException e) {
      holder.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
