package io.bbfindex.benchmarks.push;

import io.bbfindex.benchmarks.harness.BenchReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server process's memory after a full GC ({@code jcmd PID GC.run}): its resident set from
 * {@code /proc} and its used heap ({@code GC.heap_info}). WHY after a GC: subscribers' memory is
 * what stays live; garbage between two samples would be noise. The server's heap is not pre-touched
 * ({@link #SERVER_JVM}), so heap it grows into shows in its RSS.
 */
record ServerMemory(long rssBytes, long heapBytes) {
  /** The server JVM's flags: a bounded heap, sized by the JVM (not pre-touched). */
  static final List<String> SERVER_JVM = List.of("-Xmx1g");

  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  static ServerMemory sample(long pid) throws IOException, InterruptedException {
    jcmd(pid, "GC.run");
    TimeUnit.MILLISECONDS.sleep(500); // the collector returns freed regions to the OS
    return new ServerMemory(BenchReport.rssBytes(pid), heapUsed(jcmd(pid, "GC.heap_info")));
  }

  /**
   * The heap in use in {@code GC.heap_info}'s text: the sum of its generations' or regions' lines
   * ({@code PSYoungGen total ..., used NK} and {@code ParOldGen ...} under the launcher's parallel
   * collector, one {@code garbage-first heap} line under G1); metaspace lines have no total.
   */
  static long heapUsed(String heapInfo) throws IOException {
    long kib = 0;
    boolean found = false;
    for (String line : heapInfo.lines().filter(l -> l.contains(" total ")).toList()) {
      Matcher m = USED.matcher(line);
      if (m.find()) {
        kib += Long.parseLong(m.group(1));
        found = true;
      }
    }
    if (!found) {
      throw new IOException("GC.heap_info printed no 'total ..., used NK': " + heapInfo);
    }
    return kib * 1024;
  }

  List<String> row(String name) {
    return List.of(
        name,
        String.format(Locale.ROOT, "%.1f", rssBytes / 1048576.0),
        String.format(Locale.ROOT, "%.1f", heapBytes / 1048576.0));
  }

  private static String jcmd(long pid, String command) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid),
                command)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("jcmd " + pid + " " + command + " failed: " + out);
    }
    return out;
  }
}
