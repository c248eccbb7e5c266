package io.bbfindex.app.txindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.bitcoincore.TxIndexChoice;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.OpenApiContract;
import io.bbfindex.ingest.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The own txid index in the server, over real Core data directories: served with {@code --txindex
 * own}, every truth txid gets the very answer the node's txindex gives ({@code --txindex node}):
 * the same JSON, {@code /hex}, {@code /raw}, {@code /merkle-proof} and batch answer, byte for byte;
 * random txids 404 from both; {@code /v1/status} and {@code bbf_index_txindex_source} say which
 * index answers. A data directory without a txindex is served from the own index under {@code
 * auto}.
 */
class OwnTxindexEndToEndTest {

  @TempDir Path tmp;

  private static final PrintStream QUIET =
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

  private static Service serve(Path datadir, Path filters, TxIndexChoice choice, Path work)
      throws IOException {
    ChainBackend backend =
        new CoreChainAccess()
            .open(ServeRequest.of(datadir, filters, work, 0.01).withTxIndex(choice), QUIET);
    return Service.start(
        backend, new InetSocketAddress("127.0.0.1", 0), HttpInitializer.DEFAULT_MAX_BODY_BYTES);
  }

  static List<String> truthTxids(String fixture) throws IOException {
    Set<String> ids = new LinkedHashSet<>();
    for (String line : Files.readAllLines(Fixtures.dir().resolve(fixture + ".truth.tsv"))) {
      if (!line.startsWith("txid")) {
        ids.add(line.split("\t")[0]);
      }
    }
    return new ArrayList<>(ids);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "core-31.99-regtest-hashed-multifile",
        "core-31.99-regtest-mixed",
        "core-31.99-mainnet-0-599-hashed"
      })
  void theOwnIndexAnswersEveryTxidExactlyAsTheNodesTxindex(String fixture) throws IOException {
    Path datadir = Fixtures.extract(fixture, tmp);
    Path filters = tmp.resolve("filters");
    try (Service node = serve(datadir, filters, TxIndexChoice.NODE, tmp.resolve("work-node"));
        Service own = serve(datadir, filters, TxIndexChoice.OWN, tmp.resolve("work-own"))) {
      ApiClient n = ApiClient.unrecorded(node.server().baseUrl());
      ApiClient o = new ApiClient(own.server().baseUrl());
      assertEquals("own", o.get("/v1/status").json().get("txindexSource").asText());
      assertEquals("node", n.get("/v1/status").json().get("txindexSource").asText());
      assertEquals(1.0, o.metric("bbf_index_txindex_source", Map.of("source", "own")));
      assertEquals(1.0, n.metric("bbf_index_txindex_source", Map.of("source", "node")));
      List<String> ids = truthTxids(fixture);
      sameAnswers(n, ApiClient.unrecorded(own.server().baseUrl()), ids);
      String batch = ApiClient.JSON.valueToTree(ids).toString();
      assertEquals(n.post("/v1/tx/lookup", batch).body(), o.post("/v1/tx/lookup", batch).body());
      OpenApiContract.of(o).checkAll(o);
    }
  }

  /** Every route of every txid answers the same status and bytes; random txids 404 from both. */
  static void sameAnswers(ApiClient node, ApiClient own, List<String> ids) {
    for (String id : ids) {
      for (String route : List.of("", "/hex", "/merkle-proof")) {
        ApiClient.Answer a = node.get("/v1/tx/" + id + route);
        ApiClient.Answer b = own.get("/v1/tx/" + id + route);
        if (route.isEmpty()) {
          assertEquals(200, a.status(), id + " " + a.body()); // the proof of a stale tx is a 404
        }
        assertEquals(a.status(), b.status(), id + route);
        assertEquals(a.body(), b.body(), id + route);
      }
      assertArrayEquals(
          node.getBytes("/v1/tx/" + id + "/raw").body(),
          own.getBytes("/v1/tx/" + id + "/raw").body(),
          id);
    }
    Random rnd = new Random(26);
    for (int i = 0; i < 300; i++) {
      byte[] t = new byte[32];
      rnd.nextBytes(t);
      String id = HexFormat.of().formatHex(t);
      assertEquals(404, node.get("/v1/tx/" + id).status(), id);
      ApiClient.Answer b = own.get("/v1/tx/" + id);
      assertEquals(404, b.status(), id + " " + b.body());
      assertEquals(404, own.get("/v1/tx/" + id + "/hex").status(), id);
    }
  }

  @Test
  void aDataDirectoryWithoutTxindexIsServedFromTheOwnIndexUnderAuto() throws IOException {
    String fixture = "core-31.99-regtest-hashed-multifile";
    Path withIndex = Fixtures.extract(fixture, tmp.resolve("with"));
    Path without = Fixtures.extract(fixture, tmp.resolve("without"));
    deleteTree(without.resolve("indexes"));
    try (Service node = serve(withIndex, tmp.resolve("f1"), TxIndexChoice.AUTO, tmp.resolve("w1"));
        Service own = serve(without, tmp.resolve("f2"), TxIndexChoice.AUTO, tmp.resolve("w2"))) {
      ApiClient o = new ApiClient(own.server().baseUrl());
      JsonNode status = o.get("/v1/status").json();
      assertEquals("own", status.get("txindexSource").asText());
      assertEquals("none", status.get("txindexLayout").asText());
      assertEquals(
          "node",
          new ApiClient(node.server().baseUrl())
              .get("/v1/status")
              .json()
              .get("txindexSource")
              .asText());
      assertTrue(Files.isRegularFile(tmp.resolve("f2").resolve("own-txindex.dat")));
      sameAnswers(
          ApiClient.unrecorded(node.server().baseUrl()),
          ApiClient.unrecorded(own.server().baseUrl()),
          truthTxids(fixture));
      OpenApiContract.of(o).checkAll(o);
    }
  }

  @Test
  void aNodeWithoutTxindexIsRefusedUnderTxindexNode() throws IOException {
    Path without = Fixtures.extract("core-31.99-mainnet-0-599-hashed", tmp);
    deleteTree(without.resolve("indexes"));
    IOException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IOException.class,
            () -> serve(without, tmp.resolve("f"), TxIndexChoice.NODE, tmp.resolve("w")));
    assertTrue(e.getMessage().contains("-txindex=1"), e.getMessage());
  }

  @Test
  void aDamagedOwnIndexIsNamedAndRebuilt() throws IOException {
    String fixture = "core-31.99-mainnet-0-599-hashed";
    Path datadir = Fixtures.extract(fixture, tmp);
    Path filters = tmp.resolve("filters");
    serve(datadir, filters, TxIndexChoice.OWN, tmp.resolve("w")).close();
    Path file = filters.resolve("own-txindex.dat");
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 20] ^= 0x10;
    Files.write(file, bytes);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    ChainBackend backend =
        new CoreChainAccess()
            .open(
                ServeRequest.of(datadir, filters, tmp.resolve("w"), 0.01)
                    .withTxIndex(TxIndexChoice.OWN),
                new PrintStream(log, true, StandardCharsets.UTF_8));
    try (Service own =
        Service.start(
            backend,
            new InetSocketAddress("127.0.0.1", 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      String printed = log.toString(StandardCharsets.UTF_8);
      assertTrue(printed.contains(file + ": shard 0 CRC32C mismatch"), printed);
      assertTrue(printed.contains("rebuilding"), printed);
      ApiClient o = new ApiClient(own.server().baseUrl());
      assertEquals(
          200,
          o.get("/v1/tx/f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16")
              .status());
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
