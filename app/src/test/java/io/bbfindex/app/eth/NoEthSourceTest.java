package io.bbfindex.app.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** A server without an Ethereum source says so on the {@code /v1/eth/} routes. */
class NoEthSourceTest {
  @Test
  void ethRoutesAnswer404NamingTheMissingSource() throws Exception {
    try (Service service =
        Service.start(
            new NoBitcoinBackend(),
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
