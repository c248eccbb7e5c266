package io.bbfindex.deploy;

import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.follow.regtest.RegtestNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Where the deployment artefacts are, free loopback ports for the programs that need one, and a
 * {@code serve --follow} of a regtest node.
 */
final class Deploy {

  private Deploy() {}

  /** The deploy/ folder (surefire sets {@code bbf.deploy} to this module's directory). */
  static Path dir() {
    String p = System.getProperty("bbf.deploy");
    Path d = p == null ? Path.of("").toAbsolutePath() : Path.of(p);
    if (!Files.isRegularFile(d.resolve("install-tools.sh"))) {
      throw new IllegalStateException("bbf.deploy=" + d + " is not the deploy/ folder");
    }
    return d;
  }

  /**
   * A port free on 127.0.0.1 right now, for programs that cannot be told to pick one (Prometheus,
   * HAProxy); the bbf-index servers use port 0.
   */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * {@code serve --follow} of {@code node} in its own JVM, its filters, work directory and log
   * named by {@code name} under {@code tmp}; returned once ready (at the node's tip: absent ids are
   * 404).
   */
  static ServerProcess followServer(RegtestNode node, Path tmp, String name)
      throws IOException, InterruptedException {
    return ServerProcess.serve(
            List.of("-Xmx256m"),
            ServerProcess.serveArgs(
                node.datadir().resolve("regtest"),
                tmp.resolve(name + "-filters"),
                tmp.resolve(name + "-work"),
                "--follow",
                "--rpc",
                node.rpc().endpoint().toString()),
            tmp.resolve(name + ".log"),
            180)
        .awaitReady(Duration.ofMinutes(2));
  }
}
