package io.bbfindex.app.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.InMemoryChainBackend;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A server without an Ethereum source says so on the {@code /v1/eth/} routes. */
class NoEthSourceTest {
  @Test
  void ethRoutesAnswer404NamingTheMissingSource(@TempDir Path tmp) throws Exception {
    GroundTruth truth =
        GroundTruth.load(Archive.MAINNET_LDB, Fixtures.extract(Archive.MAINNET_LDB, tmp));
    try (Service service =
        Service.start(
            new InMemoryChainBackend(truth, Set.of(), 599),
            new InetSocketAddress("127.0.0.1", 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      for (String path : new String[] {"/v1/eth/tx/0x" + "ab".repeat(32), "/v1/eth/status"}) {
        ApiClient.Answer a = api.get(path);
        assertEquals(404, a.status(), path);
        assertEquals("no_eth_source", a.json().get("error").asText());
        assertTrue(a.json().get("detail").asText().contains("--eth-rpc"));
      }
    }
  }
}
