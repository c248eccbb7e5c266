package io.bbfindex.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The product jar's {@code Class-Path} (what {@code ./bbf-index} runs, never Maven's class path)
 * holds exactly the runtime dependencies Maven resolves for {@code app}, and those include every
 * runtime dependency of each product module app is made of. A scope declared in app that narrows
 * one of them (as a test scope once dropped web3j's Jackson from the jar, so that {@code serve
 * --eth-rpc} died with ClassNotFoundException) fails here.
 */
class ProductJarClassPathTest {
  private static final List<String> PRODUCT_MODULES =
      List.of("filters", "chain-ingest", "chain-follow", "eth-ingest", "app");

  /**
   * One line of {@code dependency:list}: {@code group:artifact:type[:classifier]:version:scope}.
   */
  private record Dependency(String group, String artifact, String classifier, String version) {
    static Dependency parse(String line) {
      String[] p = line.strip().split("\\s+")[0].split(":");
      return p.length == 6
          ? new Dependency(p[0], p[1], p[3], p[4])
          : new Dependency(p[0], p[1], "", p[3]);
    }

    String key() {
      return group + ":" + artifact + (classifier.isEmpty() ? "" : ":" + classifier);
    }

    /** The file name copy-dependencies and the jar's Class-Path give it. */
    String fileName() {
      return artifact + "-" + version + (classifier.isEmpty() ? "" : "-" + classifier) + ".jar";
    }
  }

  private static List<Dependency> runtimeDependencies(String module) throws IOException {
    Path list = Launcher.root().resolve(module).resolve("target/runtime-dependencies.txt");
    assertTrue(Files.isRegularFile(list), list + " (written by the build's package phase)");
    return Files.readAllLines(list).stream()
        .map(String::strip)
        .filter(l -> l.split(":").length >= 5 && !l.startsWith("The following"))
        .map(Dependency::parse)
        .toList();
  }

  @Test
  void theJarsClassPathIsAppsRuntimeClassPathAndCoversEveryModules() throws IOException {
    Path jar = Launcher.root().resolve("app/target/bbf-index.jar");
    Set<String> classPath;
    try (JarFile j = new JarFile(jar.toFile())) {
      classPath =
          Arrays.stream(j.getManifest().getMainAttributes().getValue("Class-Path").split(" "))
              .filter(s -> !s.isBlank())
              .collect(Collectors.toCollection(TreeSet::new));
    }
    Map<String, Dependency> app = new TreeMap<>();
    runtimeDependencies("app").forEach(d -> app.put(d.key(), d));
    Set<String> expected =
        app.values().stream()
            .map(d -> "lib/" + d.fileName())
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(expected, classPath, "the jar's Class-Path vs app's runtime dependencies");
    Set<String> libs;
    try (var files = Files.list(jar.resolveSibling("lib"))) {
      libs =
          files.map(f -> "lib/" + f.getFileName()).collect(Collectors.toCollection(TreeSet::new));
    }
    assertTrue(libs.containsAll(classPath), "app/target/lib lacks " + diff(classPath, libs));

    for (String module : PRODUCT_MODULES) {
      Set<String> missing =
          runtimeDependencies(module).stream()
              .map(Dependency::key)
              .filter(k -> !app.containsKey(k))
              .collect(Collectors.toCollection(TreeSet::new));
      assertEquals(
          Set.of(), missing, module + " needs these at run time, but app's jar does not have them");
    }
  }

  private static Set<String> diff(Set<String> a, Set<String> b) {
    Set<String> d = new TreeSet<>(a);
    d.removeAll(b);
    return d;
  }
}
