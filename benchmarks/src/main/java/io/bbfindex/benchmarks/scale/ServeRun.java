package io.bbfindex.benchmarks.scale;

import io.bbfindex.benchmarks.harness.ChildJvm;
import io.bbfindex.benchmarks.http.ServerProcess;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code serve} as the launcher runs it ({@code java FLAGS -jar app/target/bbf-index.jar serve
 * ...}, the flags this JVM got from {@code ./bbf-index}), timed from its exec to the first {@code
 * GET /v1/tx/{txid}} answered 200 with the right block hash; polled every 2 ms from the {@code
 * listening} line on (an answer while the index opens is a 503, not counted).
 */
final class ServeRun {

  private static final Pattern READY = Pattern.compile("ready in (\\d+) ms");
  private static final int TIMEOUT_SECONDS = 300;

  private ServeRun() {}

  /**
   * @param listeningSeconds exec to the {@code listening} line
   * @param answerSeconds exec to the first correct 200
   * @param readyMs serve's own "ready in" (index and store opened), -1 if not printed
   */
  record Timing(double listeningSeconds, double answerSeconds, long readyMs, int notReady) {
    static final List<String> HEADER =
        List.of("run", "exec to listening s", "exec to first 200 s", "serve's ready in ms", "503s");

    List<String> row(String name) {
      return List.of(
          name,
          String.format(Locale.ROOT, "%.2f", listeningSeconds),
          String.format(Locale.ROOT, "%.2f", answerSeconds),
          Long.toString(readyMs),
          Integer.toString(notReady));
    }
  }

  /**
   * @param dir where this run's log goes
   * @param work serve's {@code --work}: one shared by several runs keeps what a start leaves there
   *     for the next (the block index cache), as the default work directory beside the store does
   */
  static Timing time(Path jar, ServeStartup.Fixture f, Path dir, Path work, Path archive)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path log = dir.resolve("serve.log");
    List<String> cmd = command(jar, f, work, archive);
    long start = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
    try {
      CompletableFuture<Matcher> url = ServerProcess.listening(p);
      String base;
      try {
        base = url.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).group(1);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new IOException("serve did not listen (" + e + "); its log: " + log, e);
      }
      double listeningSeconds = (System.nanoTime() - start) / 1e9;
      int[] notReady = {0};
      double answer = firstAnswer(base, f, start, notReady);
      return new Timing(listeningSeconds, answer, readyMs(log), notReady[0]);
    } finally {
      p.destroy();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private static double firstAnswer(String base, ServeStartup.Fixture f, long start, int[] notReady)
      throws IOException, InterruptedException {
    HttpRequest get = HttpRequest.newBuilder(URI.create(base + "/v1/tx/" + f.txid())).build();
    long deadline = start + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      while (System.nanoTime() < deadline) {
        try {
          HttpResponse<String> res = http.send(get, HttpResponse.BodyHandlers.ofString());
          if (res.statusCode() == 200) {
            if (!res.body().contains("\"blockHash\":\"" + f.blockHash() + "\"")) {
              throw new IOException("serve answered the known txid wrongly: " + res.body());
            }
            return (System.nanoTime() - start) / 1e9;
          }
          if (res.statusCode() != 503) {
            throw new IOException(
                "serve answered the known txid " + res.statusCode() + ": " + res.body());
          }
          notReady[0]++;
        } catch (ConnectException e) {
          notReady[0]++;
        }
        Thread.sleep(2);
      }
    }
    throw new IOException("no correct answer within " + TIMEOUT_SECONDS + " s");
  }

  private static long readyMs(Path log) throws IOException {
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      Matcher m = READY.matcher(line);
      if (m.find()) {
        return Long.parseLong(m.group(1));
      }
    }
    return -1;
  }

  /**
   * {@code java [launcher flags] -jar JAR serve ...} on 127.0.0.1, port 0, with the class data
   * archive {@code ./bbf-index serve} keeps ({@code -XX:+AutoCreateSharedArchive}: written by a
   * first start at its exit, mapped by the next ones), so the figure is the start a user sees from
   * the second {@code serve} on.
   */
  private static List<String> command(Path jar, ServeStartup.Fixture f, Path work, Path archive) {
    List<String> cmd = ChildJvm.javaWithLauncherFlags();
    cmd.addAll(ScaleBench.classDataArchiveFlags(archive));
    cmd.addAll(List.of("-jar", jar.toString(), "serve"));
    cmd.addAll(ServerProcess.serveArgs(f.datadir(), f.filters(), work));
    return cmd;
  }
}
