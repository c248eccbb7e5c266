package io.bbfindex.app.wallet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.app.testing.MerkleFold;
import io.bbfindex.app.testing.OpenApiContract;
import io.bbfindex.app.testing.TxBytes;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.GroundTruth;
import io.bbfindex.ingest.testing.HashedFixtures;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The wallet routes over every Core fixture the other end-to-end tests use, served on 127.0.0.1:
 * for <b>every</b> ground-truth txid, /hex and /raw agree and the bytes hash to the txid by the
 * test's own parser ({@link TxBytes}), and its merkle proof folds up by the test's own SHA-256
 * ({@link MerkleFold}) to the merkle root of a header whose hash the test checks against the
 * fixture's ground truth (a txid only in stale blocks: 404).
 *
 * <p>The sweep runs {@link #THREADS} client threads over kept-alive HTTP/1.1 connections,
 * validating each answer against {@code /v1/openapi.json} as it comes (not kept); a seeded sample
 * of {@link #SAMPLE} txids also goes through a recording client, compares the esplora routes with
 * ours and validates every recorded answer against {@code /v1/openapi.json}. Esplora fees (inputs
 * minus outputs, input values read by the test from the spent transactions) are checked on the
 * first {@link #FEE_SAMPLE} of that sample.
 */
class WalletEndToEndTest {
  private static final long SEED = 1414L;
  private static final int SAMPLE = 620;
  private static final int FEE_SAMPLE = 100;
  private static final int THREADS = 4;
  private static final int CHUNK = 1_000;

  @TempDir Path tmp;

  /** One ground-truth placement of a txid: its block and whether that block is active. */
  record Row(String txidHex, String blockHashHex, boolean active) {}

  @ParameterizedTest
  @ValueSource(
      strings = {
        "MAINNET_LDB",
        "MAINNET_LEGACY",
        "REGTEST_B",
        "REGTEST_MULTIFILE",
        "HASHED_MULTIFILE",
        "MIXED",
        "MAINNET_HASHED"
      })
  void rawBytesHashToTheirTxidsProofsReachTheHeaderAndFeesAddUp(String fixture) throws Exception {
    Map<String, List<Row>> byTxid = new LinkedHashMap<>();
    Path datadir = extract(fixture, byTxid);
    List<String> txids = new ArrayList<>(byTxid.keySet());
    Collections.shuffle(txids, new Random(SEED));
    List<String> sample = txids.subList(0, Math.min(SAMPLE, txids.size()));
    try (Service service = CoreBackends.serve(datadir, tmp.resolve("filters"))) {
      long started = System.nanoTime();
      ApiClient api = new ApiClient(service.server().baseUrl());
      Map<String, byte[]> roots = merkleRoots(api, byTxid);
      for (String id : sample) {
        checkedRaw(api, id);
        Answer proof = api.get("/v1/tx/" + id + "/merkle-proof");
        assertEquals(proof.body(), api.get("/api/tx/" + id + "/merkle-proof").body(), "esplora's");
      }
      int fees = checkFees(api, sample, byTxid, fixture);
      assertTrue(fees > 0, fixture + ": no fee checked");
      OpenApiContract contract = OpenApiContract.of(api);
      int validated = contract.checkAll(api);
      assertTrue(validated > 3 * sample.size(), fixture + ": " + validated + " validated");

      ApiClient sweep = ApiClient.unrecorded(service.server().baseUrl());
      int proofs =
          sweepAll(txids, id -> checkOne(sweep, contract, id, byTxid.get(id), roots, fixture));
      assertTrue(proofs > 0, fixture + ": no proof checked");
      System.out.printf(
          Locale.ROOT,
          "%s: %,d of %,d ground-truth txids checked (hex, raw, merkle proof; %,d proofs over %,d"
              + " blocks, %,d stale-only 404s; each answer validated against OpenAPI), %,d fees,"
              + " %,d recorded answers validated against OpenAPI,"
              + " %.1f s with %d client threads%n",
          fixture,
          txids.size(),
          byTxid.size(),
          proofs,
          roots.size(),
          txids.size() - proofs,
          fees,
          validated,
          (System.nanoTime() - started) / 1e9,
          THREADS);
    }
  }

  /**
   * The merkle root of every active block holding a ground-truth txid, from its header whose hash
   * the test checks; internal byte order.
   */
  static Map<String, byte[]> merkleRoots(ApiClient api, Map<String, List<Row>> byTxid) {
    Map<String, byte[]> roots = new HashMap<>();
    byTxid.values().stream()
        .flatMap(List::stream)
        .filter(Row::active)
        .map(Row::blockHashHex)
        .distinct()
        .forEach(h -> roots.put(h, Arrays.copyOfRange(header(api, h), 36, 68)));
    return roots;
  }

  /**
   * One txid: /hex and /raw agree and hash to it, its proof reaches its active block's merkle root
   * (or is 404 when only stale blocks hold it), and all three answers validate against the OpenAPI
   * {@code contract}; returns 1 when a proof was checked.
   */
  static int checkOne(
      ApiClient api,
      OpenApiContract contract,
      String id,
      List<Row> rows,
      Map<String, byte[]> roots,
      String fixture) {
    Answer hex = api.get("/v1/tx/" + id + "/hex");
    assertEquals(200, hex.status(), fixture + " " + id + ": " + hex.body());
    validate(contract, "/v1/tx/" + id + "/hex", hex);
    HttpResponse<byte[]> raw = api.getBytes("/v1/tx/" + id + "/raw");
    assertEquals(200, raw.statusCode(), fixture + " " + id);
    contract.check(
        new ApiClient.Exchange(
            "GET",
            "/v1/tx/" + id + "/raw",
            raw.statusCode(),
            raw.headers().firstValue("content-type").orElse(null),
            ""));
    assertArrayEquals(HexFormat.of().parseHex(hex.body()), raw.body(), id + ": /raw vs /hex");
    assertEquals(id, new TxBytes(raw.body()).txidHex, fixture + ": the bytes of " + id);
    Row active = rows.stream().filter(Row::active).findFirst().orElse(null);
    Answer proof = api.get("/v1/tx/" + id + "/merkle-proof");
    validate(contract, "/v1/tx/" + id + "/merkle-proof", proof);
    if (active == null) {
      assertEquals(404, proof.status(), fixture + " stale-only " + id + ": " + proof.body());
      return 0;
    }
    assertEquals(200, proof.status(), fixture + " " + id + ": " + proof.body());
    assertArrayEquals(
        roots.get(active.blockHashHex()),
        MerkleFold.root(id, proof.json()),
        fixture + " " + id + ": the proof does not reach the header's merkle root");
    return 1;
  }

  /** Checks an unrecorded answer against the OpenAPI document as a recorded one would be. */
  private static void validate(OpenApiContract contract, String path, Answer a) {
    contract.check(
        new ApiClient.Exchange("GET", path, a.status(), a.header("content-type"), a.body()));
  }

  /** Runs {@code check} on every txid over {@link #THREADS} threads; returns the sum. */
  static int sweepAll(List<String> txids, ToIntFunction<String> check) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<Integer>> parts = new ArrayList<>();
      for (int from = 0; from < txids.size(); from += CHUNK) {
        List<String> chunk = txids.subList(from, Math.min(from + CHUNK, txids.size()));
        parts.add(pool.submit(() -> chunk.stream().mapToInt(check).sum()));
      }
      int sum = 0;
      for (Future<Integer> part : parts) {
        try {
          sum += part.get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            throw error; // the assertion, as if it had failed on this thread
          }
          throw e;
        }
      }
      return sum;
    } finally {
      pool.shutdownNow();
    }
  }

  /** /hex and /raw agree, with esplora's content types; returns the bytes. */
  static byte[] checkedRaw(ApiClient api, String id) {
    Answer hex = api.get("/v1/tx/" + id + "/hex");
    assertEquals(200, hex.status(), id + ": " + hex.body());
    assertEquals("text/plain", hex.header("content-type"));
    byte[] bytes = HexFormat.of().parseHex(hex.body());
    HttpResponse<byte[]> raw = api.getBytes("/v1/tx/" + id + "/raw");
    assertEquals(200, raw.statusCode());
    assertEquals(
        "application/octet-stream", raw.headers().firstValue("content-type").orElseThrow());
    assertArrayEquals(bytes, raw.body(), id + ": /raw differs from /hex");
    assertEquals(hex.body(), api.get("/api/tx/" + id + "/hex").body(), "esplora's hex is ours");
    return bytes;
  }

  /** The header of block {@code hashHex}, its SHA-256d checked against the hash by the test. */
  static byte[] header(ApiClient api, String hashHex) {
    Answer a = api.get("/api/block/" + hashHex + "/header");
    assertEquals(200, a.status(), hashHex + ": " + a.body());
    byte[] header = HexFormat.of().parseHex(a.body());
    assertEquals(80, header.length);
    assertEquals(hashHex, TxBytes.displayHex(GroundTruth.sha256d(header)), "header hash");
    return header;
  }

  /**
   * esplora {@code tx/:txid}: fee = inputs - outputs, input values read by the test from the spent
   * transactions' raw bytes; returns how many fees were checked.
   */
  static int checkFees(
      ApiClient api, List<String> sample, Map<String, List<Row>> byTxid, String fixture) {
    int checked = 0;
    for (String id : sample.subList(0, Math.min(FEE_SAMPLE, sample.size()))) {
      TxBytes tx = new TxBytes(HexFormat.of().parseHex(api.get("/v1/tx/" + id + "/hex").body()));
      Answer a = api.get("/api/tx/" + id);
      assertEquals(200, a.status(), id + ": " + a.body());
      JsonNode j = a.json();
      assertEquals(id, j.get("txid").asText());
      assertEquals(tx.outputValues.size(), j.get("vout").size());
      for (int i = 0; i < tx.outputValues.size(); i++) {
        assertEquals((long) tx.outputValues.get(i), j.get("vout").get(i).get("value").asLong());
      }
      boolean active = byTxid.get(id).stream().anyMatch(Row::active);
      assertEquals(active, j.get("status").get("confirmed").asBoolean(), id);
      if (tx.coinbase()) {
        assertEquals(0, j.get("fee").asLong(), id + ": a coinbase pays no fee");
        continue;
      }
      long in = 0;
      for (int i = 0; i < tx.inputs.size(); i++) {
        TxBytes.Outpoint o = tx.inputs.get(i);
        HttpResponse<byte[]> prev = api.getBytes("/v1/tx/" + o.txidHex() + "/raw");
        assertEquals(200, prev.statusCode(), fixture + " the fixture holds " + o.txidHex());
        TxBytes p = new TxBytes(prev.body());
        assertEquals(o.txidHex(), p.txidHex);
        long value = p.outputValues.get((int) o.vout());
        assertEquals(value, j.get("vin").get(i).get("prevout").get("value").asLong(), id);
        in += value;
      }
      assertEquals(in - tx.outputSum(), j.get("fee").asLong(), fixture + " fee of " + id);
      checked++;
    }
    return checked;
  }

  /** Extracts the fixture and fills {@code byTxid} from its ground truth; returns the datadir. */
  Path extract(String fixture, Map<String, List<Row>> byTxid) throws IOException {
    if (Arrays.stream(Fixtures.Archive.values()).anyMatch(a -> a.name().equals(fixture))) {
      Fixtures.Archive a = Fixtures.Archive.valueOf(fixture);
      Path datadir = Fixtures.extract(a, tmp);
      for (GroundTruth.Tx t : GroundTruth.load(a, datadir).txs()) {
        byTxid
            .computeIfAbsent(t.txidHex(), k -> new ArrayList<>())
            .add(new Row(t.txidHex(), t.block().hashHex(), t.block().onActiveChain()));
      }
      return datadir;
    }
    HashedFixtures.Archive a = HashedFixtures.Archive.valueOf(fixture);
    Path datadir = HashedFixtures.extract(a, tmp);
    for (HashedFixtures.TruthRow r : HashedFixtures.rows(a)) {
      byTxid
          .computeIfAbsent(r.txidHex(), k -> new ArrayList<>())
          .add(new Row(r.txidHex(), r.blockHashHex(), r.active()));
    }
    return datadir;
  }
}
