package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.testing.FileTrees;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #15 D8: the data directory at the same path replaced by another chain. The store's tip
 * block is not in the new block index, so nothing of the old store may be built upon: the summary
 * must not keep the old chain's txids (they made its observed FPR 0.24 % against a modelled 7e-11).
 */
class ReplacedChainTest {
  @TempDir Path tmp;

  @Test
  void aDatadirReplacedByAnotherChainRebuildsTheSummaryWithoutTheOldTxids() throws IOException {
    Path node = tmp.resolve("node");
    Path store = tmp.resolve("store");
    // the big chain first: the small one then fits the old summary's capacity (the update path)
    Files.move(Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("a")), node);
    try (NodeIndex index = NodeIndex.open(node, tmp.resolve("work"))) {
      FilterBuilder.build(index, store, BuildOptions.defaults(), ProgressListener.NONE);
    }
    FileTrees.deleteTree(node);
    Files.move(Fixtures.extract(Archive.REGTEST_B, tmp.resolve("b")), node);

    BuildReport second;
    try (NodeIndex index = NodeIndex.open(node, tmp.resolve("work"))) {
      second = FilterBuilder.build(index, store, BuildOptions.defaults(), ProgressListener.NONE);
    }
    assertTrue(
        second.rebuilt().contains(FilterBuilder.SUMMARY_NAME),
        "the summary is rebuilt, not updated: " + second.describe());

    Set<String> now =
        Fixtures.txRows(Archive.REGTEST_B).stream().map(TxRow::txidHex).collect(Collectors.toSet());
    List<TxRow> gone =
        Fixtures.txRows(Archive.REGTEST_MULTIFILE).stream()
            .filter(r -> !now.contains(r.txidHex()))
            .toList();
    try (FilterStore s = FilterStore.open(store)) {
      for (TxRow r : Fixtures.txRows(Archive.REGTEST_B)) {
        assertTrue(s.mightContainTx(r.txidInternal(), 0), "no false negative: " + r.txidHex());
      }
      long stillMaybe = gone.stream().filter(r -> s.mightContainTx(r.txidInternal(), 0)).count();
      // the summary targets 1 %: the old chain's txids are ordinary unknown ids now
      assertTrue(
          stillMaybe < gone.size() / 20,
          stillMaybe + " of " + gone.size() + " txids of the replaced chain still say maybe");
      // the new chain's rows, and its genesis coinbase, which Core does not index
      assertTrue(
          s.manifest().summary().keys() <= now.size() + 1,
          "the summary counts the new chain only: " + s.manifest().summary().keys());
    }
  }
}
