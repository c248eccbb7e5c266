package io.bbfindex.app.txindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.cli.Cli;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.app.testing.OpenApiContract;
import io.bbfindex.ingest.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The product over the Core 31.99 data directories (hashed txindex, mixed txindex, block-file XOR):
 * {@code ingest} on the command line, then every txid of the archive's truth table answered over
 * HTTP with its exact file, dataPos, txOffset, block and status (the active block first, stale rows
 * as stale), unknown txids 404, the layout in {@code /v1/status} and the metrics, and the data
 * directory byte-identical afterwards.
 */
class HashedTxindexEndToEndTest {

  @TempDir Path tmp;

  /** One {@code *.truth.tsv} row. */
  record Row(
      String txid,
      int file,
      long pos,
      long txOffset,
      String blockHash,
      int height,
      boolean active) {}

  @ParameterizedTest
  @CsvSource({
    "core-31.99-regtest-hashed-multifile, hashed",
    "core-31.99-regtest-mixed, mixed",
    "core-31.99-mainnet-0-599-hashed, hashed"
  })
  void everyTruthTxidIsAnsweredExactlyAndUnknownOnesAre404(String fixture, String layout)
      throws IOException {
    Path datadir = Fixtures.extract(fixture, tmp);
    Map<String, String> before = hashTree(datadir);
    Map<String, Row> expected = expectedAnswers(Fixtures.dir().resolve(fixture + ".truth.tsv"));
    int tip =
        expected.values().stream().filter(Row::active).mapToInt(Row::height).max().orElseThrow();

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path filters = tmp.resolve("filters");
    int code =
        Cli.run(
            new String[] {"ingest", "--datadir", datadir.toString(), "--out", filters.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new CoreChainAccess(),
            Optional.empty());
    String printed = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    assertTrue(
        printed.contains(
            "txindex: " + layout + ", indexes/txindex (txids computed from the blk files)"),
        printed);

    try (Service service =
        Service.start(
            CoreBackends.open(datadir, filters),
            new InetSocketAddress("127.0.0.1", 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      JsonNode status = api.get("/v1/status").json();
      assertEquals(layout, status.get("txindexLayout").asText());
      assertEquals("indexes/txindex", status.get("txindexLocation").asText());
      assertEquals(tip, status.get("tipHeight").asInt());
      assertEquals(
          1.0,
          api.metric(
              "bbf_index_txindex_layout", Map.of("layout", layout, "location", "indexes/txindex")));

      List<String> ids = new ArrayList<>(expected.keySet());
      for (String id : ids) {
        Answer a = api.get("/v1/tx/" + id);
        assertEquals(200, a.status(), fixture + " " + id);
        assertMatches(expected.get(id), a.json(), tip);
      }
      JsonNode batch = api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(ids).toString()).json();
      for (int i = 0; i < ids.size(); i++) {
        assertMatches(expected.get(ids.get(i)), batch.get(i), tip);
      }
      Random rnd = new Random(11);
      List<String> unknown = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        byte[] t = new byte[32];
        rnd.nextBytes(t);
        unknown.add(HexFormat.of().formatHex(t));
      }
      for (String id : unknown) {
        assertEquals(404, api.get("/v1/tx/" + id).status(), id);
      }
      JsonNode none =
          api.post("/v1/tx/lookup", ApiClient.JSON.valueToTree(unknown).toString()).json();
      for (JsonNode n : none) {
        assertFalse(n.get("present").asBoolean(), n.toString());
      }
      OpenApiContract.of(api).checkAll(api); // every answer as /v1/openapi.json says
    }
    assertEquals(
        before, hashTree(datadir), "the data directory is byte-identical after ingest and serve");
  }

  @ParameterizedTest
  @CsvSource({
    "core-0.16.0-mainnet-0-599-txindex-legacy, blocks/index",
    "core-0.21.1-mainnet-0-599-txindex-ldb, indexes/txindex"
  })
  void olderNodesReportTheLegacyLayoutAndWhereTheirTxindexLives(String fixture, String location)
      throws IOException {
    Path datadir = Fixtures.extract(fixture, tmp);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Path filters = tmp.resolve("filters");
    int code =
        Cli.run(
            new String[] {"ingest", "--datadir", datadir.toString(), "--out", filters.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new CoreChainAccess(),
            Optional.empty());
    assertEquals(0, code);
    String printed = out.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("txindex: legacy, " + location + "\n"), printed);
    try (Service service =
        Service.start(
            CoreBackends.open(datadir, filters),
            new InetSocketAddress("127.0.0.1", 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      JsonNode status = api.get("/v1/status").json();
      assertEquals("legacy", status.get("txindexLayout").asText());
      assertEquals(location, status.get("txindexLocation").asText());
      assertEquals(599, status.get("tipHeight").asInt());
      assertEquals(
          1.0,
          api.metric("bbf_index_txindex_layout", Map.of("layout", "legacy", "location", location)));
      OpenApiContract.of(api).checkAll(api); // every answer as /v1/openapi.json says
    }
  }

  private static void assertMatches(Row r, JsonNode j, int tip) {
    String ctx = r + " -> " + j;
    assertTrue(j.get("present").asBoolean(), ctx);
    assertEquals(r.txid(), j.get("txid").asText(), ctx);
    assertEquals(r.file(), j.get("file").asInt(), ctx);
    assertEquals(r.pos(), j.get("dataPos").asLong(), ctx);
    assertEquals(r.txOffset(), j.get("txOffset").asLong(), ctx);
    assertEquals(r.blockHash(), j.get("blockHash").asText(), ctx);
    assertEquals(r.height(), j.get("height").asInt(), ctx);
    assertEquals(r.active() ? "confirmed" : "stale", j.get("status").asText(), ctx);
    assertEquals(r.active() ? tip - r.height() + 1 : 0, j.get("confirmations").asInt(), ctx);
  }

  /** Per txid the row Core's RPC answers: the active-chain one if any, else the stale one. */
  private static Map<String, Row> expectedAnswers(Path truth) throws IOException {
    Map<String, Row> out = new LinkedHashMap<>();
    for (String line : Files.readAllLines(truth)) {
      if (line.startsWith("txid")) {
        continue;
      }
      String[] f = line.split("\t");
      Row r =
          new Row(
              f[0],
              Integer.parseInt(f[1]),
              Long.parseLong(f[2]),
              Long.parseLong(f[3]),
              f[5],
              Integer.parseInt(f[6]),
              f[7].equals("1"));
      Row prev = out.get(r.txid());
      if (prev == null || (!prev.active() && r.active())) {
        out.put(r.txid(), r);
      }
    }
    return out;
  }

  private static Map<String, String> hashTree(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        try (InputStream in = Files.newInputStream(p)) {
          MessageDigest md = MessageDigest.getInstance("SHA-256");
          md.update(in.readAllBytes());
          out.put(dir.relativize(p).toString(), HexFormat.of().formatHex(md.digest()));
        } catch (NoSuchAlgorithmException e) {
          throw new AssertionError(e);
        }
      }
    }
    return out;
  }
}
