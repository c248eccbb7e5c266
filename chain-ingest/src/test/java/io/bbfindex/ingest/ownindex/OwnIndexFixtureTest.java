package io.bbfindex.ingest.ownindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.blockfile.DamagedBlockException;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.testing.HashedFixtures;
import io.bbfindex.ingest.testing.HashedFixtures.Archive;
import io.bbfindex.ingest.testing.HashedFixtures.TruthRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
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
 * The own index built from the real Core 31.99 data directories (blk files XOR-obfuscated; 43 files
 * and a reorg in the multifile one, real mainnet blocks 0-599) answers every ground-truth txid at
 * its exact place, the active block first, and nothing else.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OwnIndexFixtureTest {

  @TempDir static Path tmp;

  private final Map<Archive, NodeIndex> nodes = new EnumMap<>(Archive.class);
  private final Map<Archive, OwnTxLookup> lookups = new EnumMap<>(Archive.class);
  private final Map<Archive, OwnIndexBuilder.Report> reports = new EnumMap<>(Archive.class);

  @BeforeAll
  void build() throws IOException {
    for (Archive a : Archive.values()) {
      Path dd = HashedFixtures.extract(a, tmp.resolve("data").resolve(a.name()));
      NodeIndex node = NodeIndex.open(dd, tmp.resolve("work").resolve(a.name()));
      nodes.put(a, node);
      Path file = tmp.resolve("own").resolve(a.name() + ".own");
      reports.put(a, OwnIndexBuilder.build(node, file, tmp.resolve("spill"), 2));
      lookups.put(
          a, new OwnTxLookup(OwnIndexFile.open(file), node.blocks(), node.blockFileReader()));
    }
  }

  @AfterAll
  void close() throws IOException {
    lookups.values().forEach(OwnTxLookup::close);
    for (NodeIndex n : nodes.values()) {
      n.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyTruthTxidIsFoundAtItsExactPlaceActiveBlockFirst(Archive a) throws IOException {
    Map<String, TruthRow> expected = HashedFixtures.expectedAnswers(a);
    for (TruthRow r : expected.values()) {
      Optional<TxLocation> found = lookups.get(a).find(r.txidInternal());
      assertTrue(found.isPresent(), () -> r.txidHex() + " not found");
      TxLocation l = found.get();
      assertEquals(r.file(), l.file(), r.txidHex());
      assertEquals(r.pos(), l.dataPos(), r.txidHex());
      assertEquals(r.txOffset(), l.txOffset(), r.txidHex());
      assertEquals(r.blockHashHex(), l.block().hashHex(), r.txidHex());
      assertEquals(r.height(), l.block().height(), r.txidHex());
      assertEquals(r.active(), l.block().onActiveChain(), r.txidHex());
    }
    // the genesis coinbase is in the blk files, so in the own index too (Core's txindex lacks it)
    assertEquals(expected.size(), reports.get(a).keys());
  }

  @Test
  void aTxidInAStaleAndAnActiveBlockKeepsTheActiveOneAndOnlyStaleOnesTheirStaleBlock()
      throws IOException {
    Map<String, TruthRow> expected = HashedFixtures.expectedAnswers(Archive.HASHED_MULTIFILE);
    long staleOnly = expected.values().stream().filter(r -> !r.active()).count();
    assertEquals(10, staleOnly);
    assertEquals(80, reports.get(Archive.HASHED_MULTIFILE).duplicates());
    TruthRow r = expected.get("cb63be36fa43658c40b8cff5509a9f7919a6c4f581b7b9980359986b8dc5f425");
    TxLocation l = lookups.get(Archive.HASHED_MULTIFILE).find(r.txidInternal()).orElseThrow();
    assertEquals(false, l.block().onActiveChain());
  }

  @ParameterizedTest
  @EnumSource(Archive.class)
  void randomTxidsAreNotFoundAndNeverThrow(Archive a) throws IOException {
    Random rnd = new Random(26);
    byte[] txid = new byte[32];
    for (int i = 0; i < 20_000; i++) {
      rnd.nextBytes(txid);
      assertEquals(Optional.empty(), lookups.get(a).find(txid), HashKeys.toDisplayHex(txid));
    }
  }

  @Test
  void mainnetRealTxidsBeyondTheFixtureAreNotFound() throws IOException {
    int checked = 0;
    for (var t : io.bbfindex.ingest.testing.Fixtures.realMainnetTxids()) {
      if (lookups.get(Archive.MAINNET_HASHED).find(t.txid()).isPresent()) {
        assertTrue(
            HashedFixtures.expectedAnswers(Archive.MAINNET_HASHED).containsKey(t.txidHex()),
            t.txidHex());
      }
      if (++checked == 20_000) {
        break;
      }
    }
  }

  @Test
  void theIndexIsSmall() {
    // small chains pay the fuse's small-size overhead; 40-bit values at scale are 5.6 bytes a txid
    OwnIndexBuilder.Report r = reports.get(Archive.HASHED_MULTIFILE);
    assertTrue(r.bytesPerTxid() < 6.5, () -> r.bytesPerTxid() + " bytes a txid");
  }

  @Test
  void aDamagedBlockIsDamagedNotAbsent() throws IOException {
    Path dd = HashedFixtures.extract(Archive.MAINNET_HASHED, tmp.resolve("damaged"));
    TruthRow r =
        HashedFixtures.expectedAnswers(Archive.MAINNET_HASHED)
            .get("f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16");
    try (NodeIndex node = NodeIndex.open(dd, tmp.resolve("work-damaged"))) {
      Path file = tmp.resolve("own-damaged.own");
      OwnIndexBuilder.build(node, file, tmp.resolve("spill"), 1);
      Path blk = dd.resolve("blocks").resolve("blk00000.dat");
      byte[] bytes = Files.readAllBytes(blk);
      bytes[(int) r.absOffset() + 10] ^= 0x40; // inside the transaction's first input
      Files.write(blk, bytes);
      try (OwnTxLookup damaged =
          new OwnTxLookup(OwnIndexFile.open(file), node.blocks(), node.blockFileReader())) {
        DamagedBlockException e =
            assertThrows(DamagedBlockException.class, () -> damaged.find(r.txidInternal()));
        assertTrue(e.getMessage().contains("blk00000.dat"), e.getMessage());
      }
    }
  }

  /**
   * What the index returns for a txid it was not built with is arbitrary: known txids mapped here
   * to positions before the first block, inside a block header, in the middle of a transaction,
   * past the end of the file and in a file without blocks all end as "not here".
   */
  @Test
  void anyPositionThatIsNotTheTxidsEndsNotHereNeverAnException() throws Exception {
    NodeIndex node = nodes.get(Archive.MAINNET_HASHED);
    List<TruthRow> rows =
        List.copyOf(HashedFixtures.expectedAnswers(Archive.MAINNET_HASHED).values());
    TruthRow payment =
        HashedFixtures.expectedAnswers(Archive.MAINNET_HASHED)
            .get("f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16");
    PositionPacking p = new PositionPacking(3, 27);
    long[] wrong = {
      p.pack(0, 0),
      p.pack(0, 5),
      p.pack(0, payment.pos() + 40), // inside the header of block 170
      p.pack(0, payment.absOffset() + 3), // inside the payment transaction
      p.pack(0, payment.absOffset() - 1), // one byte early
      p.pack(0, (1L << 27) - 1), // past the end of blk00000.dat
      p.pack(5, payment.absOffset()), // a file without blocks
      p.pack(7, (1L << 27) - 1),
    };
    List<byte[]> txids = new java.util.ArrayList<>();
    for (int i = 0; i < wrong.length; i++) {
      txids.add(rows.get(100 + i).txidInternal());
    }
    txids.set(3, payment.txidInternal());
    Path file = tmp.resolve("wrong.own");
    OwnIndexFiles.write(file, txids, wrong, p, 0, new byte[32], new byte[32], 0);
    try (OwnTxLookup l =
        new OwnTxLookup(OwnIndexFile.open(file), node.blocks(), node.blockFileReader())) {
      for (int i = 0; i < wrong.length; i++) {
        assertEquals(Optional.empty(), l.find(txids.get(i)), "position " + i);
      }
    }
  }

  @Test
  void theHeaderSaysWhatTheIndexWasBuiltFrom() {
    NodeIndex node = nodes.get(Archive.HASHED_MULTIFILE);
    OwnIndexHeader h = lookups.get(Archive.HASHED_MULTIFILE).file().header();
    assertEquals(node.tipHeight(), h.tipHeight());
    assertArrayEquals(node.tipHash(), h.tipHash());
    assertArrayEquals(ChainDigest.of(node.blocks()), h.chainDigest());
  }
}
