package io.bbfindex.app.follow;

import io.bbfindex.follow.regtest.RegtestNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a real {@code serve} of a regtest node's data directory in a child JVM (this
 * test's class path), for the kill tests: {@code kill -9} must hit a process, not a thread.
 */
final class ServeChildCommand {
  private ServeChildCommand() {}

  /**
   * @param jvmOptions e.g. system properties
   * @param serveOptions after {@code serve --datadir --filters --work --port 0}
   */
  static List<String> of(
      RegtestNode node, Path tmp, List<String> jvmOptions, List<String> serveOptions) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.addAll(
        List.of(
            "--add-modules=jdk.incubator.vector",
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "-cp",
            System.getProperty("java.class.path"),
            "io.bbfindex.app.Main",
            "serve",
            "--datadir",
            node.datadir().resolve("regtest").toString(),
            "--filters",
            tmp.resolve("filters").toString(),
            "--work",
            tmp.resolve("work").toString(),
            "--port",
            "0"));
    cmd.addAll(serveOptions);
    return cmd;
  }
}
