package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a server's CPU went, from a Java Flight Recorder file: self time (top of the {@code
 * jdk.ExecutionSample} stacks) by component and by method, and the project's methods most often
 * anywhere on the stacks (inclusive time), as shares of all samples.
 */
final class JfrTop {

  private JfrTop() {}

  static void print(BenchReport r, Path jfr, int rows) throws IOException {
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> inclusive = new HashMap<>();
    Map<String, Integer> byComponent = new HashMap<>();
    int samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedStackTrace st = e.getStackTrace();
      if (st == null || st.getFrames().isEmpty()) {
        continue;
      }
      samples++;
      List<RecordedFrame> frames = st.getFrames();
      self.merge(name(frames.get(0)), 1, Integer::sum);
      byComponent.merge(component(name(frames.get(0))), 1, Integer::sum);
      Set<String> seen = new HashSet<>();
      for (RecordedFrame f : frames) {
        String n = name(f);
        if (n.startsWith("io.bbfindex.") && seen.add(n)) {
          inclusive.merge(n, 1, Integer::sum);
        }
      }
    }
    r.line("JFR %s: %,d execution samples", jfr.getFileName(), samples);
    if (samples == 0) {
      return;
    }
    int total = samples;
    List<List<String>> comp = new ArrayList<>();
    byComponent.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .forEach(en -> comp.add(List.of(en.getKey(), pct(en.getValue(), total))));
    r.table("self time by component", List.of("component", "% of samples"), comp);
    List<List<String>> top = new ArrayList<>();
    self.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(rows)
        .forEach(en -> top.add(List.of(en.getKey(), pct(en.getValue(), total))));
    r.table("self time (top of stack)", List.of("method", "% of samples"), top);
    List<List<String>> incl = new ArrayList<>();
    inclusive.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(rows)
        .forEach(en -> incl.add(List.of(en.getKey(), pct(en.getValue(), total))));
    r.table(
        "inclusive time of the project's methods (anywhere on the stack)",
        List.of("method", "% of samples"),
        incl);
  }

  /** Which part of the server a method belongs to. */
  static String component(String method) {
    for (String p :
        new String[] {
          "io.bbfindex.app.http",
          "io.bbfindex.app.lookup",
          "io.bbfindex.app.metrics",
          "io.bbfindex.app",
          "io.bbfindex.ingest",
          "io.bbfindex.filters",
          "io.netty",
          "io.micrometer",
          "com.fasterxml.jackson",
          "org.fusesource",
          "org.iq80",
          "java.",
          "jdk.",
          "sun."
        }) {
      if (method.startsWith(p)) {
        return p.endsWith(".") ? "JDK (" + p + "*)" : p;
      }
    }
    return "other";
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static String pct(int n, int total) {
    return String.format(Locale.ROOT, "%.1f", 100.0 * n / total);
  }
}
