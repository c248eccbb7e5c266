package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.InMemoryChainBackend;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bbf_http_server_errors_total{route}}, which the shipped alerts' error rate and
 * store-unavailable rules read (deploy/prometheus): a 503 of {@code /readyz} counts on its route,
 * 2xx and 4xx answers count nowhere.
 */
class ServerErrorMetricTest {

  @TempDir Path tmp;

  @Test
  void fiveHundredsAreCountedByRouteAndNothingElseIs() throws IOException {
    GroundTruth truth =
        GroundTruth.load(Archive.MAINNET_LDB, Fixtures.extract(Archive.MAINNET_LDB, tmp));
    InMemoryChainBackend backend = new InMemoryChainBackend(truth, Set.of(), 599);
    try (Service service =
        Service.start(
            backend,
            new InetSocketAddress("127.0.0.1", 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      assertEquals(200, api.get("/readyz").status());
      assertEquals(404, api.get("/v1/tx/" + "ab".repeat(32)).status());
      assertEquals(404, api.get("/no/such/path").status());
      assertEquals(0, errors(api, "readyz"));
      assertEquals(0, errors(api, "tx"));
      assertEquals(0, errors(api, "other"));

      backend.close(); // the store is gone: not ready
      assertEquals(503, api.get("/readyz").status());
      assertEquals(503, api.get("/readyz").status());
      assertEquals(2, errors(api, "readyz"));
      assertEquals(0, errors(api, "tx"));
    }
  }

  private static double errors(ApiClient api, String route) throws IOException {
    return api.metric("bbf_http_server_errors_total", Map.of("route", route));
  }
}
