package io.bbfindex.app.wallet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.app.testing.MerkleFold;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Merkle proofs come from the cache of verified txid lists: the first proof in a block reads the
 * block from its blk file ({@code bbf_wallet_block_reads_total} counts it), every later proof in
 * that block, through either dialect, reads nothing and still folds up to the header's merkle root
 * (the test's own {@link MerkleFold}, against the header bytes of the fixture's ground truth).
 */
class ProofCacheTest {
  private static final String READS = "bbf_wallet_block_reads_total";

  @TempDir Path tmp;

  @Test
  void aSecondProofInTheSameBlockReadsNoBlockAndStaysCorrect() throws IOException {
    Path datadir = Fixtures.extract(Fixtures.Archive.REGTEST_B, tmp);
    GroundTruth truth = GroundTruth.load(Fixtures.Archive.REGTEST_B, datadir);
    GroundTruth.Block big = biggestActiveBlock(truth);
    List<GroundTruth.Tx> inBig =
        truth.txs().stream().filter(t -> t.block().hashHex().equals(big.hashHex())).toList();
    assertTrue(inBig.size() >= 3, "a block of several transactions: " + big.nTx());
    byte[] root = Arrays.copyOfRange(big.header(), 36, 68);
    try (Service service = CoreBackends.serve(datadir, tmp.resolve("filters"))) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      assertEquals(0.0, api.metric(READS));
      for (int i = 0; i < inBig.size(); i++) {
        String id = inBig.get(i).txidHex();
        Answer proof =
            api.get(
                i % 2 == 0 ? "/v1/tx/" + id + "/merkle-proof" : "/api/tx/" + id + "/merkle-proof");
        assertEquals(200, proof.status(), id + ": " + proof.body());
        assertArrayEquals(root, MerkleFold.root(id, proof.json()), id + " reaches the root");
        assertEquals(1.0, api.metric(READS), "only the first proof read block " + big.hashHex());
      }
      String last = inBig.getLast().txidHex();
      Answer merkleblock = api.get("/api/tx/" + last + "/merkleblock-proof");
      assertEquals(200, merkleblock.status(), merkleblock.body());
      assertTrue(
          merkleblock.body().startsWith(GroundTruth.hex(big.header())),
          "the merkleblock starts with the verified header");
      assertEquals(1.0, api.metric(READS), "the merkleblock came from the cache too");
      double hits =
          api.metric("cache_gets_total", Map.of("cache", "merkle_txids", "result", "hit"));
      // every proof but the first, and the merkleblock's proof and its own tree
      assertEquals(inBig.size() + 1.0, hits, "cache hits");
      Answer txids = api.get("/api/block/" + big.hashHex() + "/txids");
      Set<String> listed = new HashSet<>();
      txids.json().forEach(t -> listed.add(t.asText()));
      assertEquals(big.nTx(), txids.json().size());
      assertTrue(listed.containsAll(inBig.stream().map(GroundTruth.Tx::txidHex).toList()), "txids");
      assertEquals(1.0, api.metric(READS), "esplora's block txids come from the cache too");
      assertEquals(200, api.getBytes("/api/block/" + big.hashHex() + "/raw").statusCode());
      assertEquals(2.0, api.metric(READS), "a raw block is read from its file");
    }
  }

  private static GroundTruth.Block biggestActiveBlock(GroundTruth truth) {
    return truth.blocks().values().stream()
        .filter(GroundTruth.Block::onActiveChain)
        .max(Comparator.comparingInt(GroundTruth.Block::nTx))
        .orElseThrow();
  }
}
