package io.bbfindex.benchmarks.http;

import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code bitcoind} ({@code $BITCOIND}) serving Core's REST interface ({@code -rest
 * -txindex}) on 127.0.0.1 over its own copy of a fixture's data directory, with no peers; the
 * reference for the raw-transaction figures. Stopped (SIGTERM, then killed) by {@link #close()}.
 */
final class CoreRestNode implements AutoCloseable {
  private final Process process;
  private final String baseUrl;

  private CoreRestNode(Process process, String baseUrl) {
    this.process = process;
    this.baseUrl = baseUrl;
  }

  /** {@code $BITCOIND}, when set to an executable. */
  static Optional<Path> binary() {
    return binary("BITCOIND");
  }

  /** The bitcoind named by environment variable {@code variable}, when set to an executable. */
  static Optional<Path> binary(String variable) {
    String env = System.getenv(variable);
    return env == null || env.isBlank() || !Files.isExecutable(Path.of(env))
        ? Optional.empty()
        : Optional.of(Path.of(env));
  }

  /**
   * Starts {@code bitcoind} on {@code datadir} (an extracted copy of {@code archive}: the folder
   * holding {@code blocks/}) and waits until its REST interface answers.
   */
  static CoreRestNode start(Path bitcoind, Archive archive, Path datadir, Path log)
      throws IOException, InterruptedException {
    return start(bitcoind, !archive.datadirSubpath.isEmpty(), datadir, log);
  }

  /**
   * Starts {@code bitcoind} on {@code datadir} (the folder holding {@code blocks/}; a regtest one
   * sits in {@code regtest/} of the directory given to bitcoind) and waits until its REST interface
   * answers.
   */
  static CoreRestNode start(Path bitcoind, boolean regtest, Path datadir, Path log)
      throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    List<String> cmd =
        new java.util.ArrayList<>(
            List.of(bitcoind.toString(), "-datadir=" + (regtest ? datadir.getParent() : datadir)));
    cmd.addAll(RegtestNode.isolatedFlags(port));
    if (regtest) {
      cmd.add(1, "-regtest");
    }
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    CoreRestNode node = new CoreRestNode(p, "http://127.0.0.1:" + port);
    try {
      node.awaitRest();
      return node;
    } catch (IOException | InterruptedException | RuntimeException e) {
      node.close();
      throw e;
    }
  }

  String baseUrl() {
    return baseUrl;
  }

  private void awaitRest() throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest info = HttpRequest.newBuilder(URI.create(baseUrl + "/rest/chaininfo.json")).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      if (!process.isAlive()) {
        throw new IOException("bitcoind exited with " + process.exitValue() + " at start-up");
      }
      try {
        if (http.send(info, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("bitcoind's REST interface did not come up within 120 s");
      }
      Thread.sleep(100);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy(); // SIGTERM: bitcoind shuts down cleanly
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
