package io.bbfindex.benchmarks.synthetic;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterMetadata;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import io.bbfindex.ingest.store.ManifestFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A store that {@code serve} opens over a real (small) data directory, with a summary too big for
 * the cache: the store {@code ingest} built from that data directory, its summary replaced by one
 * sized for, and holding, its own txids plus {@code extra} synthetic ones ({@link SyntheticKeys}).
 * Everything else (per-file bookkeeping, block-hash filter, tip, salt, FPRs, data directory) is the
 * ingested store's, so {@code serve}'s check of the store against the node finds nothing to rebuild
 * and serves this summary: a lookup costs what it costs in a store of that many txids, where the
 * summary no longer fits in the CPU's caches.
 */
public final class BigSummaryStore {

  /** What was made: its directory, the summary's keys and bytes, and the build time. */
  public record Made(Path dir, long summaryKeys, long summaryBytes, Duration elapsed) {}

  private BigSummaryStore() {}

  /**
   * Writes into {@code out} (created; must be empty) the store {@code ingested} with a summary of
   * its own txids {@code txids} (32 bytes each, internal byte order, back to back) and {@code
   * extra} synthetic keys of {@code seed}.
   */
  public static Made make(Path ingested, Path out, byte[] txids, long extra, long seed)
      throws IOException {
    long start = System.nanoTime();
    Manifest m = ManifestFile.read(ingested);
    Files.createDirectories(out);
    for (Path p : files(ingested)) {
      String name = p.getFileName().toString();
      if (!name.equals(m.summary().name()) && !name.equals(ManifestFile.FILE_NAME)) {
        link(p, out.resolve(name));
      }
    }
    long own = txids.length / SyntheticKeys.KEY_BYTES;
    long keys = own + extra;
    BuildOptions opts = BuildOptions.defaults().withSalt(m.salt()).withTargetFpr(m.targetFpr());
    FilterMetadata meta;
    try (LoadedFilter old = FilterFile.load(ingested.resolve(m.summary().name()))) {
      meta = old.metadata();
    }
    Path summaryFile = out.resolve(m.summary().name());
    try (BlockedBloomFilter summary = StoreAssembly.newSummary(keys, opts)) {
      for (int off = 0; off < txids.length; off += SyntheticKeys.KEY_BYTES) {
        summary.add(txids, off);
      }
      SyntheticKeys synthetic = new SyntheticKeys(seed);
      byte[] k = new byte[SyntheticKeys.KEY_BYTES];
      for (long i = 0; i < extra; i++) {
        synthetic.key(i, k, 0);
        summary.add(k, 0);
      }
      FilterFile.write(summaryFile, summary, meta);
      SummaryEntry entry =
          new SummaryEntry(
              m.summary().name(),
              keys,
              FilterBuilder.capacity(summary.geometry(), m.summaryFpr()),
              FilterFile.headerCrc(summaryFile));
      ManifestFile.write(out, m.withSummary(entry));
    }
    return new Made(
        out, keys, Files.size(summaryFile), Duration.ofNanos(System.nanoTime() - start));
  }

  private static List<Path> files(Path dir) throws IOException {
    try (var s = Files.list(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  private static void link(Path from, Path to) throws IOException {
    try {
      Files.createLink(to, from);
    } catch (IOException | UnsupportedOperationException e) {
      Files.copy(from, to);
    }
  }
}
