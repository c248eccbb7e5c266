package io.bbfindex.benchmarks.store;

import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.DiskTxPos;
import io.bbfindex.ingest.store.FilterStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Issue 29's way (a), measured before it is built: the same negatives through {@link LookupService}
 * with the summary's false "maybe"s refuted by Debian's LevelDB 1.23 (without and with Core's Bloom
 * filter policy) instead of leveldbjni 1.8, alternating rounds with the product path as it is. Only
 * the reader behind the service differs; the summary, the service and its counters are the
 * product's. WHY: the false "maybe"s are the largest share of a negative (table "where a negative's
 * time goes"); this says what a cheaper refutation would leave.
 */
final class BloomRefutation {
  private BloomRefutation() {}

  static void measure(
      StoreBench.Config c,
      BenchReport r,
      NativeLevelDb plain,
      NativeLevelDb bloom,
      BloomLevelDbCost.Refuting product,
      byte[][] neg,
      byte[][] pos) {
    FilterStore store = product.store();
    Obfuscation obfuscation = product.obfuscation();
    for (NativeLevelDb db : List.of(plain, bloom)) { // the same rows as leveldbjni, untimed
      for (byte[][] keys : List.of(neg, pos)) {
        for (byte[] k : keys) {
          if (!find(db, obfuscation, k).equals(product.productFind().apply(k))) {
            throw new IllegalStateException(
                "LevelDB 1.23 and leveldbjni disagree on " + java.util.HexFormat.of().formatHex(k));
          }
        }
      }
    }
    List<Predicate<byte[]>> paths =
        List.of(
            product.product(),
            through(store, obfuscation, plain),
            through(store, obfuscation, bloom));
    double[][] cpu = new double[paths.size()][c.rounds()];
    for (int round = -1; round < c.rounds(); round++) { // round -1 warms up
      for (int m = 0; m < paths.size(); m++) {
        StoreBench.Timed t = StoreBench.timed(neg, paths.get(m), c.minNanosPerRound(), false);
        if (round >= 0) {
          cpu[m][round] = t.perCpuSecond();
        }
      }
    }
    double today = 1e9 / BenchReport.median(cpu[0]);
    double nofilter = 1e9 / BenchReport.median(cpu[1]);
    double withBloom = 1e9 / BenchReport.median(cpu[2]);
    r.table(
        "a negative through LookupService by the reader that refutes a false \"maybe\" (same"
            + " summary, same negatives, one thread, alternating rounds; median CPU ns of "
            + c.rounds()
            + " rounds)",
        List.of("reader on \"maybe\"", "CPU ns a negative", "vs the product"),
        List.of(
            List.of(
                "the product: its snapshot's Bloom blocks, then leveldbjni 1.8",
                fmt(today),
                "1.00"),
            List.of("LevelDB 1.23, no filter policy", fmt(nofilter), ratio(today, nofilter)),
            List.of("LevelDB 1.23, Core's Bloom policy", fmt(withBloom), ratio(today, withBloom))));
    r.summary("neg_ns_lookup_service_leveldbjni", today);
    r.summary("neg_ns_lookup_service_leveldb123", nofilter);
    r.summary("neg_ns_lookup_service_leveldb123_bloom", withBloom);
  }

  /** The service over the store, with {@code db} reading a txid's row on "maybe". */
  private static Predicate<byte[]> through(
      FilterStore store, Obfuscation obfuscation, NativeLevelDb db) {
    LookupService service =
        new LookupService(
            FilterStoreBackend.reading(store, txid -> find(db, obfuscation, txid)),
            new Metrics(new SimpleMeterRegistry(), "bench"));
    return k -> service.tx(k).isPresent();
  }

  private static Optional<DiskTxPos> find(NativeLevelDb db, Obfuscation obfuscation, byte[] txid) {
    byte[] key = DbKeys.txKey(txid);
    byte[] raw = db.get(key);
    try {
      return raw == null
          ? Optional.empty()
          : Optional.of(DiskTxPos.decode(key, obfuscation.plain(raw)));
    } catch (CorruptRecordException e) {
      throw new IllegalStateException("txindex row copied into LevelDB 1.23 is corrupt", e);
    }
  }

  private static String fmt(double ns) {
    return String.format(Locale.ROOT, "%.1f", ns);
  }

  private static String ratio(double base, double ns) {
    return String.format(Locale.ROOT, "%.2f", ns / base);
  }
}
