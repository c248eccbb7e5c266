package io.bbfindex.deploy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the deployment artefacts are, and free loopback ports for the programs that need one. */
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
}
