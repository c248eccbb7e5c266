package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.ChildJvm;
import io.bbfindex.follow.regtest.RegtestNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code bbf-index} command run in its own JVM ({@link ChildJvm}): {@code serve} on 127.0.0.1
 * port 0, waiting for its {@code listening on http://HOST:PORT} line, or {@code ingest} to
 * completion. Its output goes to a log file in the benchmark's temporary directory.
 */
public final class ServerProcess implements AutoCloseable {

  /** {@code listening on http://HOST:PORT}, then the transport in brackets when serve names it. */
  private static final Pattern LISTENING =
      Pattern.compile("listening on (http://[^\\s/]+)(?: \\(([\\w]+)\\))?");

  private final Process process;
  private final String baseUrl;
  private final String transport;
  private final double startSeconds;

  private ServerProcess(Process process, Matcher listening, double startSeconds) {
    this.process = process;
    this.baseUrl = listening.group(1);
    this.transport = listening.group(2) == null ? "unnamed" : listening.group(2);
    this.startSeconds = startSeconds;
  }

  /**
   * Starts {@code serve} with {@code args} (which must include {@code --port 0}); returns once it
   * listens.
   *
   * @param jvmFlags extra JVM flags (e.g. a JFR recording)
   * @throws IOException if it exits or prints nothing useful within {@code timeoutSeconds}
   */
  public static ServerProcess serve(
      List<String> jvmFlags, List<String> args, Path log, int timeoutSeconds)
      throws IOException, InterruptedException {
    List<String> cmd =
        ChildJvm.command(
            jvmFlags,
            "io.bbfindex.app.Main",
            java.util.stream.Stream.concat(java.util.stream.Stream.of("serve"), args.stream())
                .toList());
    long start = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
    CompletableFuture<Matcher> url = listening(p);
    try {
      Matcher listening = url.get(timeoutSeconds, TimeUnit.SECONDS);
      return new ServerProcess(p, listening, (System.nanoTime() - start) / 1e9);
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      p.destroyForcibly();
      throw new IOException(
          "serve did not start ("
              + e.getMessage()
              + "); its log: "
              + log
              + "; command: "
              + String.join(" ", cmd),
          e);
    }
  }

  /**
   * The {@code listening on http://HOST:PORT} line of a starting {@code serve}'s stdout, matched
   * (group 1: the base URL, group 2: the transport or null), read on a daemon thread.
   */
  public static CompletableFuture<Matcher> listening(Process p) {
    CompletableFuture<Matcher> url = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  Matcher m = LISTENING.matcher(line);
                  if (m.find()) {
                    url.complete(m);
                  }
                }
                url.completeExceptionally(
                    new IOException("serve ended without a 'listening on' line"));
              } catch (IOException e) {
                url.completeExceptionally(e);
              }
            },
            "serve-stdout");
    reader.setDaemon(true);
    reader.start();
    return url;
  }

  /**
   * The arguments of {@code serve} over {@code datadir} with the filter store {@code filters} and
   * the scratch {@code work}, on 127.0.0.1 port 0, then {@code extra} (e.g. {@code --follow}).
   */
  public static List<String> serveArgs(Path datadir, Path filters, Path work, String... extra) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--datadir",
                datadir.toString(),
                "--filters",
                filters.toString(),
                "--work",
                work.toString(),
                "--port",
                "0",
                "--bind",
                "127.0.0.1"));
    args.addAll(List.of(extra));
    return args;
  }

  /**
   * {@code serve --follow} of the regtest {@code node} in its own JVM with {@code jvmFlags}, its
   * files under {@code tmp} and {@code extra} options after the usual ones; returns once it is
   * ready at the node's tip (until then absent ids are 503, not 404).
   */
  public static ServerProcess serveFollowing(
      RegtestNode node, Path tmp, List<String> jvmFlags, String... extra)
      throws IOException, InterruptedException {
    List<String> args =
        new java.util.ArrayList<>(
            serveArgs(
                node.datadir().resolve("regtest"),
                tmp.resolve("filters"),
                tmp.resolve("work"),
                "--follow",
                "--rpc",
                node.rpc().endpoint().toString()));
    args.addAll(List.of(extra));
    return serve(jvmFlags, args, tmp.resolve("serve.log"), 300).awaitReady(Duration.ofSeconds(300));
  }

  /**
   * Runs {@code ingest} of {@code datadir} into the filter store {@code filters} (scratch {@code
   * work}) to completion; seconds it took.
   */
  public static double ingest(Path datadir, Path filters, Path work, Path log)
      throws IOException, InterruptedException {
    return ingest(
        List.of(
            "--datadir",
            datadir.toString(),
            "--out",
            filters.toString(),
            "--work",
            work.toString()),
        log);
  }

  /** Runs {@code ingest} with {@code args} to completion; seconds it took. */
  public static double ingest(List<String> args, Path log)
      throws IOException, InterruptedException {
    List<String> cmd =
        ChildJvm.command(
            List.of(),
            "io.bbfindex.app.Main",
            java.util.stream.Stream.concat(java.util.stream.Stream.of("ingest"), args.stream())
                .toList());
    long start = System.nanoTime();
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException("ingest did not finish within 10 minutes; its log: " + log);
    }
    if (p.exitValue() != 0) {
      throw new IOException("ingest failed (exit " + p.exitValue() + "); its log: " + log);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  public String baseUrl() {
    return baseUrl;
  }

  /** The transport its listening line names ({@code io_uring}, {@code epoll}, {@code nio}). */
  public String transport() {
    return transport;
  }

  /**
   * Waits until {@code GET /readyz} is 200: a {@code serve --follow} listens before its follower
   * reaches the node's tip, and until then answers an unknown txid 503 {@code catching_up}.
   *
   * @throws IOException if it is not ready within {@code timeout} (the process is then closed)
   */
  public ServerProcess awaitReady(Duration timeout) throws IOException, InterruptedException {
    try {
      pollReady(timeout);
      return this;
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private void pollReady(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    HttpRequest readyz = HttpRequest.newBuilder(URI.create(baseUrl + "/readyz")).build();
    try (HttpClient http = HttpClient.newHttpClient()) {
      while (http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() != 200) {
        if (System.nanoTime() > deadline) {
          throw new IOException("serve not ready within " + timeout + " (" + baseUrl + ")");
        }
        Thread.sleep(50);
      }
    }
  }

  /** Process start to the listening line. */
  public double startSeconds() {
    return startSeconds;
  }

  public long pid() {
    return process.pid();
  }

  /** SIGTERM (the service's shutdown hook closes it), then SIGKILL after 15 s. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(5, TimeUnit.SECONDS);
    }
  }
}
