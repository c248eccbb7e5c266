package io.bbfindex.app.testing;

import io.bbfindex.app.demo.ArchiveExtractor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The checked-in Bitcoin Core fixtures (system property {@code bbf.fixtures}, set by surefire). */
public final class Fixtures {
  public static final String MAINNET = "core-0.21.1-mainnet-0-599-txindex-ldb";
  public static final String MAINNET_LEGACY = "core-0.16.0-mainnet-0-599-txindex-legacy";
  public static final String REGTEST_B = "core-0.21.1-regtest-txindex-B";
  public static final String MULTIFILE = "core-0.21.1-regtest-txindex-multifile-compact";

  private Fixtures() {}

  public static Path dir() {
    String dir = System.getProperty("bbf.fixtures");
    if (dir == null) {
      throw new IllegalStateException("system property bbf.fixtures is not set (surefire sets it to <root>/fixtures)");
    }
    return Path.of(dir);
  }

  /**
   * Extracts the named archive into {@code target} and returns the data directory: the folder that
   * holds {@code blocks/} (the archive root for mainnet, its {@code regtest/} for regtest).
   */
  public static Path extract(String name, Path target) throws IOException {
    Path root = target.resolve(name);
    ArchiveExtractor.extractTarGz(dir().resolve(name + ".tar.gz"), root, 1);
    for (Path datadir : new Path[] {root, root.resolve("regtest")}) {
      if (Files.isDirectory(datadir.resolve("blocks"))) {
        return datadir;
      }
    }
    throw new IOException("archive " + name + " has no blocks/ folder");
  }

  /** The ground-truth table of an archive ({@code .txindex.tsv} or {@code .txindex.tsv.gz}). */
  public static Path groundTruth(String name) {
    Path plain = dir().resolve(name + ".txindex.tsv");
    return Files.exists(plain) ? plain : dir().resolve(name + ".txindex.tsv.gz");
  }
}
