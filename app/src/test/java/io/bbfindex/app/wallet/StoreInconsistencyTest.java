package io.bbfindex.app.wallet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.app.testing.OpenApiContract;
import io.bbfindex.app.testing.TxBytes;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A block file whose bytes no longer hash to what the index says: the wallet routes answer 500
 * {@code store_inconsistent} naming the file and position, count it in {@code
 * bbf_store_inconsistent_total}, and never serve the wrong bytes; the other transactions are still
 * served.
 */
class StoreInconsistencyTest {
  private static final String PAYMENT_170 =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

  @TempDir Path tmp;

  @Test
  void aTransactionWhoseStoredBytesChangedIsRefusedNamedAndCounted() throws IOException {
    Path datadir = Fixtures.extract(Fixtures.Archive.MAINNET_LDB, tmp);
    GroundTruth truth = GroundTruth.load(Fixtures.Archive.MAINNET_LDB, datadir);
    GroundTruth.Tx row =
        truth.txs().stream().filter(t -> t.txidHex().equals(PAYMENT_170)).findFirst().orElseThrow();
    GroundTruth.Tx other =
        truth.txs().stream()
            .filter(t -> t.block().height() != 170 && t.block().height() > 0)
            .findFirst()
            .orElseThrow();
    long txStart = row.dataPos() + 80 + row.txOffset();
    try (RandomAccessFile blk =
        new RandomAccessFile(datadir.resolve("blocks/blk00000.dat").toFile(), "rw")) {
      blk.seek(txStart); // the version's low byte: 1 -> 3, still a parseable transaction
      int b = blk.read();
      blk.seek(txStart);
      blk.write(b ^ 0x02);
    }
    try (Service service = CoreBackends.serve(datadir, tmp.resolve("filters"))) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      assertEquals(200, api.get("/v1/tx/" + PAYMENT_170).status(), "the location is still known");
      for (String route : new String[] {"/hex", "/raw", "/merkle-proof"}) {
        Answer a = api.get("/v1/tx/" + PAYMENT_170 + route);
        assertEquals(500, a.status(), route + ": " + a.body());
        JsonNode j = a.json();
        assertEquals("store_inconsistent", j.get("error").asText(), route);
        String detail = j.get("detail").asText();
        assertTrue(detail.contains("blk00000.dat"), route + " names the file: " + detail);
        assertFalse(
            a.body().contains(tmp.toString()) || a.body().contains("Exception"),
            route + " shows no local path and no class name: " + a.body());
        assertTrue(
            detail.contains(Long.toString(row.dataPos())),
            route + " names the position: " + detail);
      }
      Answer esplora = api.get("/api/tx/" + PAYMENT_170 + "/hex");
      assertEquals(500, esplora.status());
      assertTrue(esplora.body().contains("blk00000.dat"), esplora.body());
      assertEquals(4.0, api.metric("bbf_store_inconsistent_total"));
      byte[] fine = HexFormat.of().parseHex(api.get("/v1/tx/" + other.txidHex() + "/hex").body());
      assertEquals(other.txidHex(), new TxBytes(fine).txidHex, "other blocks are still served");
      assertEquals(4.0, api.metric("bbf_store_inconsistent_total"));
      OpenApiContract.of(api).checkAll(api);
    }
  }
}
