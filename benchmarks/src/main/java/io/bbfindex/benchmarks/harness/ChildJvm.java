package io.bbfindex.benchmarks.harness;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines for the JVMs a benchmark starts (the service, the start-up probe): the same java,
 * the same class path, and the flags the launcher gave this JVM that the service needs (Vector API
 * module, native access, GC choice, heap size, project root), so a child runs as {@code
 * ./bbf-index} would run it.
 */
public final class ChildJvm {

  private ChildJvm() {}

  /** {@code java FLAGS... [extraFlags...] -cp CLASSPATH mainClass args...}. */
  public static List<String> command(List<String> extraFlags, String mainClass, List<String> args) {
    List<String> cmd = javaWithLauncherFlags();
    cmd.addAll(extraFlags);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(args);
    return cmd;
  }

  /** {@code java} and the flags the launcher gave this JVM that the service needs. */
  public static List<String> javaWithLauncherFlags() {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (f.startsWith("--add-modules")
          || f.startsWith("--enable-native-access")
          || f.startsWith("-XX:+Use")
          || f.startsWith("-Xmx")
          || f.startsWith("-Xms")
          || f.startsWith("-Dbbf.home=")) {
        cmd.add(f);
      }
    }
    return cmd;
  }
}
