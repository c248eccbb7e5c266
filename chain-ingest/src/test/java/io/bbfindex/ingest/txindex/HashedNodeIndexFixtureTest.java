package io.bbfindex.ingest.txindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.TxIndexLayout;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.HashedFixtures;
import io.bbfindex.ingest.testing.HashedFixtures.Archive;
import io.bbfindex.ingest.testing.HashedFixtures.TruthRow;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link NodeIndex} on the real Core 31.99 data directories (hashed, mixed, mainnet hashed): layout
 * detection and every ground-truth txid answered at its exact place, active block first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HashedNodeIndexFixtureTest {

  @TempDir static Path tmp;

  private final Map<Archive, Path> datadirs = new EnumMap<>(Archive.class);
  private final Map<Archive, Map<String, String>> hashesBefore = new EnumMap<>(Archive.class);
  private final Map<Archive, NodeIndex> indexes = new EnumMap<>(Archive.class);

  @BeforeAll
  void extractAndOpen() throws IOException {
    for (Archive a : Archive.values()) {
      Path dd = HashedFixtures.extract(a, tmp.resolve("data").resolve(a.name()));
      datadirs.put(a, dd);
      hashesBefore.put(a, Fixtures.hashTree(dd));
      indexes.put(a, NodeIndex.open(dd, tmp.resolve("work").resolve(a.name())));
    }
  }

  @AfterAll
  void closeAll() throws IOException {
    for (NodeIndex idx : indexes.values()) {
      idx.close();
    }
  }

  @Test
  void layoutAndLocationAreDetected() {
    assertEquals(TxIndexLayout.HASHED, indexes.get(Archive.HASHED_MULTIFILE).txindexLayout());
    assertEquals(TxIndexLayout.MIXED, indexes.get(Archive.MIXED).txindexLayout());
    assertEquals(TxIndexLayout.HASHED, indexes.get(Archive.MAINNET_HASHED).txindexLayout());
    assertEquals("mixed, indexes/txindex", indexes.get(Archive.MIXED).txindexDescription());
  }

  @Test
  void txindexTipComesFromBestBlockV2NotTheFrozenLegacyLocator() {
    NodeIndex mixed = indexes.get(Archive.MIXED);
    assertEquals(250, mixed.tipHeight());
    assertEquals(250, mixed.txindexTipHeight().orElseThrow());
    assertEquals(599, indexes.get(Archive.MAINNET_HASHED).txindexTipHeight().orElseThrow());
    assertEquals(296, indexes.get(Archive.HASHED_MULTIFILE).txindexTipHeight().orElseThrow());
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyTruthTxidIsAnsweredAtItsExactPlaceActiveBlockFirst(Archive a) throws IOException {
    NodeIndex idx = indexes.get(a);
    Map<String, TruthRow> expected = HashedFixtures.expectedAnswers(a);
    int stale = 0;
    for (TruthRow r : expected.values()) {
      TxLocation loc =
          idx.findTx(r.txidInternal())
              .orElseThrow(() -> new AssertionError(a + ": not found " + r));
      assertEquals(r.file(), loc.file(), r.txidHex());
      assertEquals(r.pos(), loc.dataPos(), r.txidHex());
      assertEquals(r.txOffset(), loc.txOffset(), r.txidHex());
      assertEquals(r.absOffset(), loc.txFileOffset(), r.txidHex());
      assertEquals(r.blockHashHex(), loc.block().hashHex(), r.txidHex());
      assertEquals(r.height(), loc.block().height(), r.txidHex());
      assertEquals(r.active(), loc.block().onActiveChain(), r.txidHex());
      assertEquals(r.txidHex(), idx.readTransaction(loc).getTxId().toString());
      stale += r.active() ? 0 : 1;
    }
    if (a == Archive.HASHED_MULTIFILE) {
      assertEquals(10, stale, "txids only in stale blocks");
      assertEquals(4154, expected.size());
    }
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyIndexedTruthRowHasItsXKeyUnderTheIndexSalt(Archive a) throws IOException {
    NodeIndex idx = indexes.get(a);
    HashedTxLookup lookup = idx.hashedLookup().orElseThrow();
    int checked = 0;
    for (TruthRow r : HashedFixtures.rows(a)) {
      if (!r.indexRow().equals("x")) {
        continue;
      }
      boolean present =
          lookup.candidates(r.txidInternal()).stream()
              .anyMatch(
                  c ->
                      c.dataPos() == r.pos()
                          && c.file() == r.file()
                          && c.txOffset() == r.txOffset());
      assertTrue(present, a + ": no 'x' row for " + r);
      checked++;
    }
    assertTrue(checked > 600, "rows checked: " + checked);
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void unknownTxidsAreAbsent(Archive a) {
    NodeIndex idx = indexes.get(a);
    Random rnd = new Random(7);
    for (int i = 0; i < 500; i++) {
      byte[] txid = new byte[32];
      rnd.nextBytes(txid);
      assertEquals(Optional.empty(), idx.findTx(txid));
    }
  }

  @Test
  void aMixedIndexAnswersLegacyRowsAfterTheHashedMiss() throws IOException {
    NodeIndex idx = indexes.get(Archive.MIXED);
    TruthRow legacy =
        HashedFixtures.rows(Archive.MIXED).stream()
            .filter(r -> r.indexRow().equals("t"))
            .findFirst()
            .orElseThrow();
    long before = idx.leveldbReads();
    assertEquals(legacy.pos(), idx.findTx(legacy.txidInternal()).orElseThrow().dataPos());
    assertEquals(2, idx.leveldbReads() - before, "one hashed seek, then one 't' get");
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void theDatadirIsByteIdenticalAfterOpeningAndLookups(Archive a) throws IOException {
    for (TruthRow r : HashedFixtures.rows(a)) {
      indexes.get(a).findTx(r.txidInternal());
    }
    assertEquals(hashesBefore.get(a), Fixtures.hashTree(datadirs.get(a)));
  }
}
