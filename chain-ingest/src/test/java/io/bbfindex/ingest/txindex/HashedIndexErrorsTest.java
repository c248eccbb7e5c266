package io.bbfindex.ingest.txindex;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.DataDirException;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.testing.CoreLevelDbWriter;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.HashedFixtures;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A damaged hashed txindex is refused or reported, never answered "absent" by mistake. */
class HashedIndexErrorsTest {

  @TempDir Path tmp;

  private static void assertMentions(Exception e, String... parts) {
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "message lacks '" + p + "': " + e.getMessage());
    }
  }

  @Test
  void xRowsWithoutTheirSaltAreRefused() throws IOException {
    Path dd = Fixtures.extract(Fixtures.Archive.MAINNET_LDB, tmp.resolve("data"));
    CoreLevelDbWriter.putAll(
        dd.resolve("indexes/txindex"), Map.of(HashedKeys.txRowKey(0x1234, 0, 81), new byte[0]));
    DataDirException e =
        assertThrows(DataDirException.class, () -> NodeIndex.open(dd, tmp.resolve("work")));
    assertMentions(e, "indexes/txindex", "corrupt hashed txindex", "txid_hash_salt", "-reindex");
  }

  @Test
  void anSRecordNamingAnUnknownBlockIsRefused() throws IOException {
    Path dd = HashedFixtures.extract(HashedFixtures.Archive.MAINNET_HASHED, tmp.resolve("data"));
    CoreLevelDbWriter.putAll(
        dd.resolve("indexes/txindex"), Map.of(HashedKeys.seqKey(5000), new byte[32]));
    DataDirException e =
        assertThrows(DataDirException.class, () -> NodeIndex.open(dd, tmp.resolve("work")));
    assertMentions(e, "block seq 5000", "which the block index lacks");
  }

  @Test
  void anXRowNamingASeqWithoutItsSRecordFailsTheLookupLoudly() throws IOException {
    Path dd = HashedFixtures.extract(HashedFixtures.Archive.MAINNET_HASHED, tmp.resolve("data"));
    byte[] txid =
        Fixtures.internal("f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16");
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work0"))) {
      long prefix = idx.hashedLookup().orElseThrow().hasher().prefix40(txid, 0);
      CoreLevelDbWriter.putAll(
          dd.resolve("indexes/txindex"),
          Map.of(HashedKeys.txRowKey(prefix, 7000, 215), new byte[0]));
    }
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work1"))) {
      IndexReadException e = assertThrows(IndexReadException.class, () -> idx.findTx(txid));
      assertMentions(e, "block seq 7000", "no 's' record");
    }
  }

  @Test
  void aRunningNodesRowsOfBlocksItsBlockIndexHasNotFlushedAreBeyondItsSnapshot()
      throws IOException {
    // Core writes its txindex as it goes and its block index about hourly: in a copy of a running
    // node, 's' records and 'x' rows can name blocks the block index does not hold yet.
    Path dd = HashedFixtures.extract(HashedFixtures.Archive.MAINNET_HASHED, tmp.resolve("data"));
    byte[] txid =
        Fixtures.internal("f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16");
    long prefix;
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work0"))) {
      prefix = idx.hashedLookup().orElseThrow().hasher().prefix40(txid, 0);
    }
    byte[] unflushedBlock = new byte[32];
    unflushedBlock[0] = 42;
    CoreLevelDbWriter.putAll(
        dd.resolve("indexes/txindex"),
        Map.of(
            HashedKeys.seqKey(5000),
            unflushedBlock,
            HashedKeys.txRowKey(prefix, 5000, 215),
            new byte[0]));

    assertThrows(DataDirException.class, () -> NodeIndex.open(dd, tmp.resolve("work1")));
    try (NodeIndex live = NodeIndex.open(dd, tmp.resolve("work2"), true)) {
      assertTrue(live.findTx(txid).isPresent(), "the flushed block's row still answers");
      assertTrue(
          live.hashedLookup().orElseThrow().blockOfSeq(5000).isEmpty(),
          "the unflushed block is left to the layer that follows the node");
    }
  }
}
