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
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The wallet routes over every Core fixture the other end-to-end tests use, served on 127.0.0.1:
 * raw bytes re-hashed by the test's own parser ({@link TxBytes}), merkle proofs folded up by the
 * test's own SHA-256 to the merkle root of a header whose hash the test checks against the
 * fixture's ground truth, and esplora fees against input values the test reads itself.
 *
 * <p>Fixtures with more than {@link #ALL_UP_TO} txids are checked on a seeded sample of that many
 * (regtest-B: 6,383; regtest-multifile: 150,401; hashed-multifile: 4,233 txids).
 */
class WalletEndToEndTest {
  private static final long SEED = 1414L;
  private static final int ALL_UP_TO = 620;
  private static final int FEE_SAMPLE = 100;

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
  void rawBytesHashToTheirTxidsProofsReachTheHeaderAndFeesAddUp(String fixture) throws IOException {
    Map<String, List<Row>> byTxid = new LinkedHashMap<>();
    Path datadir = extract(fixture, byTxid);
    List<String> txids = new ArrayList<>(byTxid.keySet());
    Collections.shuffle(txids, new Random(SEED));
    List<String> sample = txids.subList(0, Math.min(ALL_UP_TO, txids.size()));
    try (Service service = CoreBackends.serve(datadir, tmp.resolve("filters"))) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      Map<String, byte[]> headers = new HashMap<>();
      int proofs = 0;
      for (String id : sample) {
        byte[] raw = checkedRaw(api, id);
        assertEquals(id, new TxBytes(raw).txidHex, fixture + " /hex of " + id);
        Row active = byTxid.get(id).stream().filter(Row::active).findFirst().orElse(null);
        Answer proof = api.get("/v1/tx/" + id + "/merkle-proof");
        if (active == null) {
          assertEquals(404, proof.status(), fixture + " stale-only " + id + ": " + proof.body());
          continue;
        }
        assertEquals(200, proof.status(), fixture + " " + id + ": " + proof.body());
        byte[] header = headers.computeIfAbsent(active.blockHashHex(), h -> header(api, h));
        assertArrayEquals(
            Arrays.copyOfRange(header, 36, 68),
            MerkleFold.root(id, proof.json()),
            fixture + " " + id + ": the proof does not reach the header's merkle root");
        assertEquals(
            proof.json(), api.get("/api/tx/" + id + "/merkle-proof").json(), "esplora's is ours");
        proofs++;
      }
      assertTrue(proofs > 0, fixture + ": no proof checked");
      int fees = checkFees(api, sample, byTxid, fixture);
      assertTrue(fees > 0, fixture + ": no fee checked");
      assertTrue(OpenApiContract.of(api).checkAll(api) > 3 * sample.size());
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
