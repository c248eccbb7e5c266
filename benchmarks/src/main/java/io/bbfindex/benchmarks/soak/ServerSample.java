package io.bbfindex.benchmarks.soak;

import io.bbfindex.benchmarks.harness.BenchReport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * The server process's resources at one moment: resident set size and open files from {@code
 * /proc/PID}, heap and direct memory from its own {@code /metrics}: the JVM's direct buffers and,
 * apart, the direct memory of Netty's pooled allocator, which the JVM's buffer pools do not count.
 */
record ServerSample(
    long rssBytes, long openFiles, double heapBytes, double directBytes, double nettyDirectBytes) {

  static ServerSample of(long pid, String baseUrl, HttpClient http)
      throws IOException, InterruptedException {
    String metrics =
        http.send(
                HttpRequest.newBuilder(URI.create(baseUrl + "/metrics"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    long fds;
    try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      fds = s.count();
    }
    return new ServerSample(
        BenchReport.rssBytes(pid),
        fds,
        sum(metrics, "jvm_memory_used_bytes{", "area=\"heap\""),
        sum(metrics, "jvm_buffer_memory_used_bytes{", "id=\"direct\""),
        sum(metrics, "netty_allocator_memory_used{", "memory_type=\"direct\""));
  }

  /**
   * Sum of the samples of the Prometheus text {@code metrics} whose line starts with {@code series}
   * and contains {@code label}.
   */
  static double sum(String metrics, String series, String label) {
    return metrics
        .lines()
        .filter(l -> l.startsWith(series) && l.contains(label))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
