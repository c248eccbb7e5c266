package io.bbfindex.app.demo;

import io.bbfindex.ingest.archive.ArchiveExtractor;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The embedded default of {@code ./bbf-index serve}: the real mainnet blocks 0-599 data directory
 * that ships in {@code fixtures/}, extracted on first run under {@code data/demo/} in the project
 * (never into the archive's folder), ingested there and served.
 */
public final class EmbeddedDemo {
  /** The archive, relative to the project root ({@code bbf.home}). */
  public static final String ARCHIVE = "fixtures/core-0.21.1-mainnet-0-599-txindex-ldb.tar.gz";

  /** The first person-to-person payment (Satoshi to Hal Finney), in block 170. */
  public static final String PAYMENT_170 =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

  /** Block 170. */
  public static final String BLOCK_170 =
      "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee";

  /**
   * A real mainnet txid from a much later block (fixtures/mainnet-real-txids.tsv.gz): a negative
   * here.
   */
  public static final String LATER_TXID =
      "3c8335377e4a59b96d2fa621f7f5de7901fac6d7fd0bfb965ae498f39196add2";

  /**
   * Where the demo lives under the project root.
   *
   * @param datadir the extracted Core data directory (holds {@code blocks/})
   * @param filters the filter store built from it
   * @param work scratch space for the private LevelDB snapshots
   */
  public record Layout(Path datadir, Path filters, Path work) {
    public static Layout under(Path home) {
      Path demo = home.resolve("data").resolve("demo");
      return new Layout(demo.resolve("datadir"), demo.resolve("filters"), demo.resolve("work"));
    }
  }

  private EmbeddedDemo() {}

  /**
   * Extracts the demo data directory on first run (atomically: a half-extracted directory is never
   * mistaken for a complete one) and returns the layout.
   *
   * @throws IOException if the archive is missing (names it and the fix) or cannot be extracted
   */
  public static Layout prepare(Path home, PrintStream log) throws IOException {
    Path archive = home.resolve(ARCHIVE);
    Layout layout = Layout.under(home);
    if (Files.isDirectory(layout.datadir().resolve("blocks"))) {
      return layout;
    }
    if (!Files.isRegularFile(archive)) {
      throw new IOException(
          "the embedded demo archive is missing: "
              + archive
              + " (run ./bbf-index from a full clone of the project, or pass --datadir and"
              + " --filters)");
    }
    log.println(
        "bbf-index: first run: extracting "
            + home.relativize(archive)
            + " into "
            + layout.datadir());
    Path tmp = layout.datadir().resolveSibling("datadir.tmp-" + ProcessHandle.current().pid());
    deleteRecursively(tmp);
    ArchiveExtractor.extractTarGz(archive, tmp, 1);
    try {
      Files.move(tmp, layout.datadir(), StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, layout.datadir());
    }
    return layout;
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
