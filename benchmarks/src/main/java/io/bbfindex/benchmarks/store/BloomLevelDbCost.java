package io.bbfindex.benchmarks.store;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.DiskTxPos;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.testing.TxIndexOnly;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The comparison the plain LevelDB get leaves out: Bitcoin Core opens its LevelDBs with a Bloom
 * filter policy of 10 bits a key, which lets a negative get stop at a table's filter block instead
 * of reading a data block; leveldbjni 1.8 (the product's reader, and the plain get of the main
 * table) has none. Here the same txindex records are copied into a LevelDB written with Core's
 * policy by Debian's LevelDB 1.23 ({@link NativeLevelDb}), and gets of the same negatives and
 * positives are timed there, beside the same library without the policy (the like-for-like
 * baseline: same library, same tables, only the filter differs), one thread, alternating rounds.
 * Skipped with the reason when {@code libleveldb1d} is not installed.
 */
final class BloomLevelDbCost {
  private BloomLevelDbCost() {}

  /**
   * What the product path's negatives go through, for {@link BloomRefutation}: the store, how the
   * txindex's values are XORed, and the product path itself.
   */
  record Refuting(
      FilterStore store,
      Obfuscation obfuscation,
      Predicate<byte[]> product,
      Function<byte[], Optional<DiskTxPos>> productFind) {}

  /**
   * The product path's txindex: {@code txindexDir}'s rows rewritten by LevelDB 1.23 with Core's
   * {@code NewBloomFilterPolicy(10)} (every table then has the filter block a node's txindex has),
   * opened as the product opens a node's. Without libleveldb1d, {@code txindexDir} itself, said so:
   * its tables have no filter block, so every false "maybe" goes to leveldbjni.
   */
  static TxIndexOnly openAsCoreWritesIt(BenchReport r, Path txindexDir, Path tmp)
      throws IOException {
    Optional<Path> library = NativeLevelDb.library();
    if (library.isEmpty()) {
      r.line(
          "product path's txindex: the generated one (leveldbjni wrote it: no Bloom filter blocks,"
              + " every false \"maybe\" is a leveldbjni get); libleveldb1d is not installed to"
              + " write it as Core does (deploy/install-tools.sh installs it)");
      return TxIndexOnly.open(txindexDir, tmp.resolve("work-product"));
    }
    long t0 = System.nanoTime();
    Path plainDir = tmp.resolve("as-core-source");
    Path coreDir = tmp.resolve("as-core-txindex");
    copyTree(txindexDir, plainDir);
    try (NativeLevelDb plain = NativeLevelDb.open(library.get(), plainDir, 0, CACHE_BYTES);
        NativeLevelDb core = NativeLevelDb.open(library.get(), coreDir, 10, CACHE_BYTES)) {
      core.copyFrom(plain);
    }
    TxIndexOnly asCore = TxIndexOnly.open(coreDir, tmp.resolve("work-product"));
    List<String> verdicts = asCore.filterVerdicts();
    long trusted = verdicts.stream().filter(v -> v.contains(": trusted")).count();
    r.line(
        "product path's txindex: the generated rows rewritten as Core writes them (LevelDB 1.23,"
            + " NewBloomFilterPolicy(10), 32 MiB tables, no compression) in %.1f s; the product's"
            + " snapshot of it trusts the Bloom filter blocks of %d of its %d tables and refutes"
            + " false \"maybe\"s with them before leveldbjni's get",
        (System.nanoTime() - t0) / 1e9, trusted, verdicts.size());
    return asCore;
  }

  /** Block cache of both databases: leveldbjni's default, which the plain get runs with. */
  private static final long CACHE_BYTES = 8L << 20;

  /**
   * @param productNegPerSecond the product path's negative lookups per CPU-second (main table)
   */
  static void measure(
      StoreBench.Config c,
      BenchReport r,
      Path txindexDir,
      Path tmp,
      byte[][] pos,
      byte[][] neg,
      double productNegPerSecond,
      Refuting refuting)
      throws IOException {
    Optional<Path> library = NativeLevelDb.library();
    if (library.isEmpty()) {
      r.line(
          "LevelDB with Core's Bloom filter policy: skipped, Debian's libleveldb1d is not installed"
              + " (deploy/install-tools.sh installs it)");
      return;
    }
    try (BenchTempDir work = BenchTempDir.create("bbf-bench-bloom-")) {
      Path plainDir = work.path().resolve("plain");
      copyTree(txindexDir, plainDir);
      long t0 = System.nanoTime();
      try (NativeLevelDb plain = NativeLevelDb.open(library.get(), plainDir, 0, CACHE_BYTES);
          NativeLevelDb bloom =
              NativeLevelDb.open(library.get(), work.path().resolve("bloom"), 10, CACHE_BYTES)) {
        bloom.copyFrom(plain);
        r.line(
            "LevelDB 1.23 (Debian libleveldb1d, C API through the JDK's FFM): the txindex copied"
                + " into a database written with Core's NewBloomFilterPolicy(10) in %.1f s",
            (System.nanoTime() - t0) / 1e9);
        byte[][] negKeys = rowKeys(neg);
        byte[][] posKeys = rowKeys(pos);
        double[][] cpu = timeGets(c, plain, bloom, negKeys, posKeys);
        double plainNeg = BenchReport.median(cpu[0]);
        double bloomNeg = BenchReport.median(cpu[1]);
        double plainPos = BenchReport.median(cpu[2]);
        double bloomPos = BenchReport.median(cpu[3]);
        r.table(
            "LevelDB 1.23 gets with and without Core's Bloom filter policy (same records, one"
                + " thread, 8 MiB block cache, checksums verified; median of "
                + c.rounds()
                + " rounds)",
            List.of("query", "LevelDB 1.23", "gets per CPU-s", "CPU ns/get"),
            List.of(
                List.of("negative", "no filter policy", count(plainNeg), StoreBench.ns(plainNeg)),
                List.of(
                    "negative",
                    "Bloom, 10 bits a key (Core's)",
                    count(bloomNeg),
                    StoreBench.ns(bloomNeg)),
                List.of("positive", "no filter policy", count(plainPos), StoreBench.ns(plainPos)),
                List.of(
                    "positive",
                    "Bloom, 10 bits a key (Core's)",
                    count(bloomPos),
                    StoreBench.ns(bloomPos))));
        r.line(
            "neg_speedup_over_leveldb_bloom = the product path's negatives/s (main table) over"
                + " LevelDB-with-Bloom negative gets/s: the speed-up against a LevelDB configured"
                + " as Core configures its own.");
        r.summary("leveldb_bloom_gets_per_second_neg", bloomNeg);
        r.summary("leveldb_bloom_gets_per_second_pos", bloomPos);
        r.summary("leveldb_bloom_over_no_filter_neg", bloomNeg / plainNeg);
        r.summary("neg_speedup_over_leveldb_bloom", productNegPerSecond / bloomNeg);
        BloomRefutation.measure(c, r, plain, bloom, refuting, neg, pos);
      }
    }
  }

  /**
   * Gets per CPU-second by round: negatives without and with the policy, then positives likewise; a
   * positive not found fails the pass.
   */
  private static double[][] timeGets(
      StoreBench.Config c,
      NativeLevelDb plain,
      NativeLevelDb bloom,
      byte[][] negKeys,
      byte[][] posKeys) {
    double[][] cpu = new double[4][c.rounds()];
    List<Predicate<byte[]>> gets = List.of(plain::contains, bloom::contains);
    for (int round = -1; round < c.rounds(); round++) { // round -1 warms up
      for (int db = 0; db < 2; db++) {
        StoreBench.Timed n = StoreBench.timed(negKeys, gets.get(db), c.minNanosPerRound(), false);
        StoreBench.Timed p = StoreBench.timed(posKeys, gets.get(db), c.minNanosPerRound(), true);
        if (round >= 0) {
          cpu[db][round] = n.perCpuSecond();
          cpu[2 + db][round] = p.perCpuSecond();
        }
      }
    }
    return cpu;
  }

  /** The txindex row keys ({@code 't'} + txid) of {@code txids}. */
  private static byte[][] rowKeys(byte[][] txids) {
    byte[][] keys = new byte[txids.length][];
    for (int i = 0; i < txids.length; i++) {
      keys[i] = new byte[33];
      keys[i][0] = 't';
      System.arraycopy(txids[i], 0, keys[i], 1, 32);
    }
    return keys;
  }

  private static String count(double perSecond) {
    return BenchReport.count((long) perSecond);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) {
        if (Files.isRegularFile(f) && !f.getFileName().toString().equals("LOCK")) {
          Files.copy(f, to.resolve(f.getFileName()));
        }
      }
    }
  }
}
