package io.bbfindex.app.bitcoincore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.app.testing.OpenApiContract;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The whole product over real Bitcoin Core data: each fixture archive extracted, opened through
 * chain-ingest (private LevelDB snapshots), filtered by real blocked Bloom filters and served on
 * 127.0.0.1. Answers are checked against an oracle that does not share code with the service: the
 * fixture's ground-truth table joined with a scan of the blk files ({@link GroundTruth}).
 */
class EndToEndTest {
  private static final long SEED = 424_242L;

  @TempDir Path tmp;

  /** The answer the oracle expects for a ground-truth row. */
  static ObjectNode expected(GroundTruth.Tx t, int tip) {
    GroundTruth.Block b = t.block();
    ObjectNode o = ApiClient.JSON.createObjectNode();
    o.put("txid", t.txidHex())
        .put("present", true)
        .put("status", b.onActiveChain() ? "confirmed" : "stale")
        .put("blockHash", b.hashHex())
        .put("height", b.height())
        .put("confirmations", b.onActiveChain() ? tip - b.height() + 1 : 0)
        .put("file", t.file())
        .put("dataPos", t.dataPos())
        .put("txOffset", t.txOffset());
    return o;
  }

  /**
   * Same fields with the same values; numbers compare by value (a parsed 38040 is an int node, ours
   * a long).
   */
  private static final Comparator<JsonNode> SAME_VALUE =
      (a, b) ->
          (a.equals(b)
                  || (a.isNumber()
                      && b.isNumber()
                      && a.decimalValue().compareTo(b.decimalValue()) == 0))
              ? 0
              : 1;

  static void assertAnswer(ObjectNode expected, JsonNode actual, String context) {
    assertTrue(
        expected.equals(SAME_VALUE, actual),
        () -> context + ": expected " + expected + " but was " + actual);
  }

  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "MAINNET_LEGACY", "REGTEST_B"})
  void everyGroundTruthTxidIsAnsweredExactlyBySingleAndBatchLookups(Archive fixture)
      throws IOException {
    Path datadir = Fixtures.extract(fixture, tmp);
    GroundTruth truth = GroundTruth.load(fixture, datadir);
    try (Service service = start(CoreBackends.open(datadir, tmp.resolve("filters")))) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      List<String> ids =
          new ArrayList<>(truth.txs().stream().map(GroundTruth.Tx::txidHex).toList());
      Collections.shuffle(ids, new Random(SEED));
      // Singles for (a seeded sample of at most) 1,000 txids; the batches below cover every one.
      for (String id : ids.subList(0, Math.min(1_000, ids.size()))) {
        Answer a = api.get("/v1/tx/" + id);
        assertEquals(200, a.status(), fixture + " " + id);
        assertAnswer(
            expected(truthOf(truth, id), truth.tipHeight()), a.json(), fixture + " seed " + SEED);
      }
      Map<String, GroundTruth.Tx> byId =
          truth.txs().stream().collect(Collectors.toMap(GroundTruth.Tx::txidHex, t -> t));
      for (int from = 0; from < ids.size(); from += 10_000) {
        List<String> chunk = ids.subList(from, Math.min(ids.size(), from + 10_000));
        JsonNode answers =
            api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(chunk).toString()).json();
        for (int i = 0; i < chunk.size(); i++) {
          assertAnswer(
              expected(byId.get(chunk.get(i)), truth.tipHeight()),
              answers.get(i),
              fixture + " seed " + SEED);
        }
      }
      for (GroundTruth.Block b : truth.blocks().values()) {
        JsonNode j = api.get("/v1/block/" + b.hashHex()).json();
        assertEquals(b.height(), j.get("height").asInt(), b.hashHex());
        assertEquals(b.nTx(), j.get("nTx").asInt());
        assertEquals(b.file(), j.get("file").asInt());
        assertEquals(b.dataPos(), j.get("dataPos").asLong());
        assertEquals(b.onActiveChain(), j.get("onActiveChain").asBoolean());
      }
      assertEquals(truth.tipHeight(), api.get("/v1/filters").json().get("tipHeight").asInt());
      OpenApiContract.of(api).checkAll(api); // every answer as /v1/openapi.json says
    }
  }

  @Test
  void theMultifileFixtureAnswersEveryTxidThroughBatchesAndASampleThroughSingles()
      throws IOException {
    Path datadir = Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp);
    GroundTruth truth = GroundTruth.load(Archive.REGTEST_MULTIFILE, datadir);
    assertEquals(150_401, truth.txs().size());
    assertTrue(
        truth.txs().stream().anyMatch(t -> t.file() == 1), "the fixture spans two blk files");
    try (Service service = start(CoreBackends.open(datadir, tmp.resolve("filters")))) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      List<GroundTruth.Tx> txs = new ArrayList<>(truth.txs());
      Collections.shuffle(txs, new Random(SEED));
      for (int from = 0; from < txs.size(); from += 10_000) {
        List<GroundTruth.Tx> chunk = txs.subList(from, Math.min(txs.size(), from + 10_000));
        List<String> ids = chunk.stream().map(GroundTruth.Tx::txidHex).toList();
        JsonNode answers =
            api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(ids).toString()).json();
        for (int i = 0; i < chunk.size(); i++) {
          assertAnswer(expected(chunk.get(i), truth.tipHeight()), answers.get(i), "seed " + SEED);
        }
      }
      for (GroundTruth.Tx t : txs.subList(0, 300)) {
        assertAnswer(
            expected(t, truth.tipHeight()),
            api.get("/v1/tx/" + t.txidHex()).json(),
            "seed " + SEED);
      }
      OpenApiContract.of(api).checkAll(api); // every answer as /v1/openapi.json says
    }
  }

  @Test
  void unknownTxidsAre404AndOnlyFilterMaybesReadLevelDb() throws IOException {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, tmp);
    GroundTruth truth = GroundTruth.load(Archive.MAINNET_LDB, datadir);
    Set<String> known =
        truth.txs().stream().map(GroundTruth.Tx::txidHex).collect(Collectors.toSet());
    List<String> later = Fixtures.realTxidsAbsentFrom(known, 2_000);
    try (Service service = start(CoreBackends.open(datadir, tmp.resolve("filters")))) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      int absentByFilter = 0;
      for (String txid : later) {
        double reads = api.metric("bbf_leveldb_reads_total");
        double falsePositives =
            api.metric(
                "bbf_lookups_total", Map.of("kind", "tx", "outcome", "filter_false_positive"));
        Answer a = api.get("/v1/tx/" + txid);
        assertEquals(404, a.status(), txid);
        double readDelta = api.metric("bbf_leveldb_reads_total") - reads;
        double fpDelta =
            api.metric(
                    "bbf_lookups_total", Map.of("kind", "tx", "outcome", "filter_false_positive"))
                - falsePositives;
        // A filter "no" reads nothing; only a refuted "maybe" costs its one LevelDB get.
        assertEquals(fpDelta, readDelta, txid);
        if (readDelta == 0) {
          absentByFilter++;
        }
        if (absentByFilter >= 200) {
          break;
        }
      }
      assertEquals(200, absentByFilter, "at 1% FPR nearly every real later txid is a filter 'no'");
      JsonNode batch =
          api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(later).toString()).json();
      for (int i = 0; i < later.size(); i++) {
        assertEquals(false, batch.get(i).get("present").asBoolean(), later.get(i));
      }
      OpenApiContract.of(api).checkAll(api); // every answer as /v1/openapi.json says
    }
  }

  @Test
  void theGenesisCoinbaseIsAnsweredThoughCoreNeverIndexesIt() throws IOException {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, tmp);
    GroundTruth truth = GroundTruth.load(Archive.MAINNET_LDB, datadir);
    String coinbase = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";
    assertTrue(
        truth.txs().stream().noneMatch(t -> t.txidHex().equals(coinbase)),
        "Core has no txindex row for it");
    try (Service service = start(CoreBackends.open(datadir, tmp.resolve("filters")))) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      JsonNode single = api.get("/v1/tx/" + coinbase).json();
      assertEquals(0, single.get("height").asInt());
      assertEquals(truth.blockAt(0).hashHex(), single.get("blockHash").asText());
      assertEquals(truth.blockAt(0).dataPos(), single.get("dataPos").asLong());
      assertEquals(1, single.get("txOffset").asInt());
      assertEquals(600, single.get("confirmations").asInt());
      JsonNode batch = api.post("/v1/tx/lookup", "[\"" + coinbase + "\"]").json();
      assertEquals(single, batch.get(0));
      assertEquals(
          HashKeys.toDisplayHex(HashKeys.fromDisplayHex("x", coinbase)),
          single.get("txid").asText());
      OpenApiContract.of(api).checkAll(api); // every answer as /v1/openapi.json says
    }
  }

  private static GroundTruth.Tx truthOf(GroundTruth truth, String txid) {
    return truth.txs().stream().filter(t -> t.txidHex().equals(txid)).findFirst().orElseThrow();
  }

  private static Service start(io.bbfindex.app.lookup.ChainBackend backend) throws IOException {
    return Service.start(
        backend, new InetSocketAddress("127.0.0.1", 0), HttpInitializer.DEFAULT_MAX_BODY_BYTES);
  }
}
