package io.bbfindex.app.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query logic over the real mainnet backend: a batch is exactly the singles (answers, outcome
 * counts and LevelDB reads), and the outcomes partition the lookups.
 */
class LookupServiceTest {
  private static final long SEED = 99;

  @TempDir static Path tmp;
  static ChainBackend backend;
  static List<String> ids;

  @BeforeAll
  static void open() throws IOException {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, tmp);
    GroundTruth truth = GroundTruth.load(Archive.MAINNET_LDB, datadir);
    backend = CoreBackends.open(datadir, tmp.resolve("filters"));
    Set<String> known =
        truth.txs().stream().map(GroundTruth.Tx::txidHex).collect(Collectors.toSet());
    ids = new ArrayList<>(known);
    ids.addAll(Fixtures.realTxidsAbsentFrom(known, 3_000));
    Random random = new Random(SEED);
    for (int i = 0; i < 2_000; i++) { // random keys: some are filter false positives
      byte[] k = new byte[32];
      random.nextBytes(k);
      ids.add(HashKeys.toDisplayHex(k));
    }
    Collections.shuffle(ids, new Random(SEED));
  }

  @AfterAll
  static void close() {
    backend.close();
  }

  @Test
  void aBatchIsExactlyTheSinglesInAnswersCountsAndReads() {
    Metrics singleMetrics = new Metrics(new SimpleMeterRegistry(), "test");
    LookupService singles = new LookupService(backend, singleMetrics);
    long readsBefore = backend.leveldbReads();
    List<TxAnswer> one = new ArrayList<>();
    for (String id : ids) {
      one.add(singles.tx(HashKeys.fromDisplayHex("txid", id)).orElse(null));
    }
    long singleReads = backend.leveldbReads() - readsBefore;

    Metrics batchMetrics = new Metrics(new SimpleMeterRegistry(), "test");
    LookupService batches = new LookupService(backend, batchMetrics);
    byte[] keys = new byte[32 * ids.size()];
    for (int i = 0; i < ids.size(); i++) {
      HashKeys.parseDisplayHex(ids.get(i), 0, 64, keys, 32 * i);
    }
    readsBefore = backend.leveldbReads();
    TxAnswer[] many = batches.txBatch(keys, ids.size());
    assertEquals(
        singleReads,
        backend.leveldbReads() - readsBefore,
        "same LevelDB reads (seed " + SEED + ")");

    for (int i = 0; i < ids.size(); i++) {
      TxAnswer a = one.get(i);
      TxAnswer b = many[i];
      if (a == null) {
        assertNull(b, ids.get(i));
      } else {
        assertEquals(a.height(), b.height(), ids.get(i));
        assertEquals(a.dataPos(), b.dataPos(), ids.get(i));
        assertEquals(a.txOffset(), b.txOffset(), ids.get(i));
      }
    }
    double total = 0;
    for (LookupOutcome o : LookupOutcome.values()) {
      assertEquals(
          singleMetrics.lookups(LookupKind.TX, o), batchMetrics.lookups(LookupKind.TX, o), o.tag());
      total += batchMetrics.lookups(LookupKind.TX, o);
    }
    assertEquals(ids.size(), total, "every lookup has exactly one outcome");
    assertEquals(615, batchMetrics.lookups(LookupKind.TX, LookupOutcome.CONFIRMED));
    double falsePositives =
        batchMetrics.lookups(LookupKind.TX, LookupOutcome.FILTER_FALSE_POSITIVE);
    assertEquals(
        615 + falsePositives, singleReads, "a read for each filter 'maybe', none for a 'no'");
    assertTrue(
        batchMetrics.lookups(LookupKind.TX, LookupOutcome.ABSENT_BY_FILTER) > 4_500,
        "most negatives never read");
  }
}
