package io.bbfindex.benchmarks.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.node.RpcCredentials;
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
  private final Path cookie;

  private CoreRestNode(Process process, String baseUrl, Path cookie) {
    this.process = process;
    this.baseUrl = baseUrl;
    this.cookie = cookie;
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
    return start(bitcoind, regtest, datadir, log, List.of());
  }

  /** As {@link #start(Path, boolean, Path, Path)}, with {@code extra} options after the usual. */
  static CoreRestNode start(
      Path bitcoind, boolean regtest, Path datadir, Path log, List<String> extra)
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
    cmd.addAll(extra);
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    CoreRestNode node = new CoreRestNode(p, "http://127.0.0.1:" + port, datadir.resolve(".cookie"));
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

  /**
   * The node's JSON-RPC (same port as REST, cookie authentication), calls bounded by {@code
   * timeout}.
   */
  NodeRpc rpc(Duration timeout) {
    return new NodeRpc(URI.create(baseUrl + "/"), new RpcCredentials.Cookie(cookie), timeout);
  }

  /**
   * Waits until {@code getindexinfo} reports the txindex synced: the index catches up in the
   * background after start-up, and until then Core answers a present txid 404.
   *
   * @return the height the txindex reports
   */
  long awaitTxindexSynced(Duration timeout) throws IOException, InterruptedException {
    NodeRpc rpc = rpc(Duration.ofSeconds(30));
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      JsonNode txindex = rpc.call("getindexinfo", "txindex").path("txindex");
      if (txindex.path("synced").asBoolean(false)) {
        return txindex.path("best_block_height").asLong();
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("Core's txindex not synced within " + timeout + ": " + txindex);
      }
      Thread.sleep(100);
    }
  }

  /**
   * Stops the node through RPC {@code stop} and fails unless it exits 0 within 5 minutes: a data
   * directory kept for later runs must have been flushed and closed.
   */
  void stopCleanly() throws IOException, InterruptedException {
    rpc(Duration.ofSeconds(30)).call("stop");
    if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
      throw new IOException("bitcoind did not stop cleanly");
    }
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
