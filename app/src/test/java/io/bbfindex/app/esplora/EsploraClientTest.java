package io.bbfindex.app.esplora;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.app.testing.MerkleFold;
import io.bbfindex.app.testing.OpenApiContract;
import io.bbfindex.app.testing.TxBytes;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.GroundTruth;
import io.bbfindex.ingest.testing.RequiredTool;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unmodified, widely used esplora client library (mempool.space's {@code @mempool/mempool.js},
 * pinned in app/pom.xml and installed from npm by the build) against a real server on 127.0.0.1
 * over the real mainnet 0-599 fixture: its answers for transactions, statuses, hex, merkle proofs,
 * merkleblock proofs, block headers and the tip are checked against the fixture's ground truth by
 * the test's own code.
 */
class EsploraClientTest {
  private static final String PAYMENT_170 =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

  @TempDir Path tmp;

  @Test
  void mempoolJsGetsCorrectAnswersFromARealServer() throws Exception {
    Path modules = clientModules();
    Path datadir = Fixtures.extract(Fixtures.Archive.MAINNET_LDB, tmp);
    GroundTruth truth = GroundTruth.load(Fixtures.Archive.MAINNET_LDB, datadir);
    List<GroundTruth.Tx> txs = new ArrayList<>(truth.txs());
    Collections.shuffle(txs, new Random(14));
    List<String> ids = new ArrayList<>(List.of(PAYMENT_170));
    txs.stream()
        .map(GroundTruth.Tx::txidHex)
        .filter(id -> !id.equals(PAYMENT_170))
        .limit(15)
        .forEach(ids::add);
    Map<String, GroundTruth.Tx> byId =
        truth.txs().stream().collect(Collectors.toMap(GroundTruth.Tx::txidHex, t -> t));
    try (Service service = CoreBackends.serve(datadir, tmp.resolve("filters"))) {
      URI base = URI.create(service.server().baseUrl());
      JsonNode out =
          runClient(
              modules,
              base.getHost() + ":" + base.getPort(),
              ApiClient.JSON.writeValueAsString(ids));
      for (String id : ids) {
        checkClientAnswers(id, byId.get(id), out);
      }
      JsonNode payment = out.get("txs").get(PAYMENT_170).get("tx");
      // block 170: 10 BTC to Hal Finney and 40 back, spending block 9's 50 BTC coinbase output
      assertEquals(0, payment.get("fee").asLong());
      assertEquals(5_000_000_000L, payment.get("vin").get(0).get("prevout").get("value").asLong());
      assertEquals(truth.tipHeight(), out.get("tipHeight").asInt());
      assertEquals(truth.blockAt(truth.tipHeight()).hashHex(), out.get("tipHash").asText());
      assertEquals(out.get("tipHash").asText(), out.get("tipByHeight").asText());
      assertEquals(404, out.get("unknownStatus").asInt(), "an unknown txid's status is a 404");
      checkOtherRoutes(new ApiClient(service.server().baseUrl()), ids, byId);
    }
  }

  /** One transaction's answers as the library returned them, against the ground truth. */
  private static void checkClientAnswers(String id, GroundTruth.Tx t, JsonNode out) {
    JsonNode r = out.get("txs").get(id);
    byte[] raw = HexFormat.of().parseHex(r.get("hex").asText());
    TxBytes parsed = new TxBytes(raw);
    assertEquals(id, parsed.txidHex, "hex hashes to the txid");
    JsonNode tx = r.get("tx");
    assertEquals(id, tx.get("txid").asText());
    assertEquals(raw.length, tx.get("size").asInt());
    assertEquals(parsed.outputValues.size(), tx.get("vout").size());
    for (int i = 0; i < parsed.outputValues.size(); i++) {
      assertEquals((long) parsed.outputValues.get(i), tx.get("vout").get(i).get("value").asLong());
    }
    JsonNode status = r.get("status");
    assertTrue(status.get("confirmed").asBoolean(), id);
    assertEquals(t.block().height(), status.get("block_height").asInt());
    assertEquals(t.block().hashHex(), status.get("block_hash").asText());
    String header = HexFormat.of().formatHex(t.block().header());
    assertEquals(header, out.get("headers").get(t.block().hashHex()).asText());
    assertArrayEquals(
        Arrays.copyOfRange(t.block().header(), 36, 68),
        MerkleFold.root(id, r.get("merkleProof")),
        id + ": the client's merkle proof does not reach the header's root");
    String merkleBlock = r.get("merkleBlockProof").asText();
    assertEquals(header, merkleBlock.substring(0, 160), "merkleblock starts with the header");
    byte[] count = HexFormat.of().parseHex(merkleBlock.substring(160, 168));
    assertEquals(
        t.block().nTx(), (count[0] & 0xff) | (count[1] & 0xff) << 8, "merkleblock tx count");
  }

  /** The esplora routes the library did not call, and the OpenAPI check of every answer. */
  private static void checkOtherRoutes(
      ApiClient api, List<String> ids, Map<String, GroundTruth.Tx> byId) {
    for (String id : ids) {
      api.get("/api/tx/" + id);
      api.get("/api/tx/" + id + "/status");
      api.get("/api/tx/" + id + "/merkleblock-proof");
    }
    String block170 = byId.get(PAYMENT_170).block().hashHex();
    JsonNode block = api.get("/api/block/" + block170).json();
    assertEquals(170, block.get("height").asInt());
    assertEquals(2, block.get("tx_count").asInt());
    assertEquals(1.0, block.get("difficulty").asDouble());
    JsonNode blockStatus = api.get("/api/block/" + block170 + "/status").json();
    assertTrue(blockStatus.get("in_best_chain").asBoolean());
    assertEquals(2, api.get("/api/block/" + block170 + "/txids").json().size());
    assertEquals(PAYMENT_170, api.get("/api/block/" + block170 + "/txid/1").body());
    assertEquals(404, api.get("/api/block/" + block170 + "/txid/2").status());
    assertEquals(200, api.getBytes("/api/block/" + block170 + "/raw").statusCode());
    assertEquals(block170, api.get("/api/block-height/170").body());
    assertEquals(404, api.get("/api/block-height/600").status());
    assertEquals("599", api.get("/api/blocks/tip/height").body());
    assertEquals(404, api.get("/api/tx/" + "00".repeat(32) + "/status").status());
    assertEquals(400, api.get("/api/tx/xyz").status());
    assertEquals(404, api.get("/api/mempool/txids").status(), "not following a node");
    assertEquals(404, api.post("/api/tx", "00").status(), "no relay without --esplora-relay");
    for (String path : List.of("/v1/status", "/livez", "/readyz", "/metrics", "/v1/filters")) {
      assertEquals(200, api.get(path).status(), path);
    }
    assertTrue(OpenApiContract.of(api).checkAll(api) > 3 * ids.size());
  }

  /** Runs the client script with node; its stdout parsed. */
  private JsonNode runClient(Path modules, String host, String txids) throws Exception {
    Path script = tmp.resolve("esplora-client.js");
    try (InputStream in = EsploraClientTest.class.getResourceAsStream("esplora-client.js")) {
      Files.write(script, in.readAllBytes());
    }
    ProcessBuilder pb = new ProcessBuilder("node", script.toString(), host, txids);
    pb.environment().put("NODE_PATH", modules.toString());
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    byte[] stdout = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the client finished");
    assertEquals(0, p.exitValue(), "the client failed (its stderr is above)");
    return ApiClient.JSON.readTree(new String(stdout, StandardCharsets.UTF_8));
  }

  /** The installed client's node_modules, or the test is skipped (failed under CI=true). */
  private static Path clientModules() {
    String configured = System.getProperty("bbf.esploraClient");
    Path modules = configured == null ? null : Path.of(configured);
    if (modules == null
        || !Files.isRegularFile(modules.resolve("@mempool/mempool.js/package.json"))
        || !nodeRuns()) {
      String reason =
          "the esplora client is not installed ("
              + configured
              + "): the build installs @mempool/mempool.js with npm into app/target/esplora-client;"
              + " are node and npm on the PATH?";
      RequiredTool.missing(reason);
    }
    return modules;
  }

  private static boolean nodeRuns() {
    try {
      return new ProcessBuilder("node", "--version").start().waitFor() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
