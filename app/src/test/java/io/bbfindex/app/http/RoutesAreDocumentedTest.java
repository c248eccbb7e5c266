package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.demo.EmbeddedDemo;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.RoutesDocumented;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The route table and {@code GET /v1/openapi.json} agree, on a server with every Bitcoin feature:
 * every route it serves is documented, every documented operation is served (a route added without
 * its OpenAPI fragment, or a fragment left behind by a removed route, fails here), and each
 * documented operation reaches its route rather than the table's 404 or 405.
 */
class RoutesAreDocumentedTest {
  @TempDir static Path tmp;
  static FixtureServer server;

  @BeforeAll
  static void start() throws IOException {
    server = FixtureServer.start(tmp);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void everyServedRouteIsDocumentedAndEveryDocumentedOneServed() {
    RoutesDocumented.assertSame(server.service(), server.api());
    assertTrue(RoutesDocumented.served(server.service()).contains("GET /api/blocks/tip/height"));
    assertTrue(RoutesDocumented.served(server.service()).contains("GET /v1/tx/{txid}"));
  }

  @Test
  void everyDocumentedOperationReachesItsRoute() {
    ApiClient api = server.api();
    List<String> reached = new ArrayList<>();
    for (String operation : RoutesDocumented.documented(api)) {
      String method = operation.substring(0, operation.indexOf(' '));
      String path =
          operation
              .substring(operation.indexOf(' ') + 1)
              .replace("{txid}", EmbeddedDemo.PAYMENT_170)
              .replace("{hash}", EmbeddedDemo.BLOCK_170)
              .replace("{height}", "170")
              .replace("{index}", "0");
      if (path.startsWith("/v1/eth/")) {
        continue; // this server has no Ethereum source (EthServeAcceptanceTest covers one)
      }
      ApiClient.Answer a = method.equals("POST") ? api.post(path, "[]") : api.get(path);
      assertNotEquals(405, a.status(), operation);
      assertTrue(
          a.status() != 404
              || !(a.body().contains("\"not_found\"") || a.body().equals("Not found")),
          operation + " answered by the table's 404: " + a.body());
      reached.add(operation);
    }
    assertTrue(reached.size() >= 29, "operations reached: " + reached);
  }

  @Test
  void esploraWrongMethodIs405WithAllowInEsplorasWords() {
    ApiClient api = server.api();
    ApiClient.Answer post = api.post("/api/blocks/tip/height", "");
    assertEquals(405, post.status());
    assertEquals("GET, HEAD", post.header("allow"));
    assertEquals("Method not allowed", post.body());
    assertTrue(post.header("content-type").startsWith("text/plain"), post.header("content-type"));
    ApiClient.Answer get = api.get("/api/tx");
    assertEquals(405, get.status());
    assertEquals("POST", get.header("allow"));
    ApiClient.Answer unknown = api.get("/api/no/such/route");
    assertEquals(404, unknown.status());
    assertEquals("Not found", unknown.body());
  }

  @Test
  void aPathNoRouteServesIs404ListingTheRoutes() {
    ApiClient.Answer a = server.api().get("/v2/tx");
    assertEquals(404, a.status());
    assertEquals("not_found", a.json().get("error").asText());
    String detail = a.json().get("detail").asText();
    assertTrue(detail.contains("GET /v1/tx/{txid}"), detail);
    assertTrue(detail.contains("POST /v1/tx/lookup"), detail);
    assertTrue(detail.contains("/api/..."), detail);
  }

  /**
   * Without {@code --follow} the events streams are a 404 naming it, not a lookup of a 71-character
   * "txid" refused as malformed.
   */
  @Test
  void eventsStreamsWithoutFollowAre404NamingFollow() {
    for (String path :
        List.of("/v1/tx/" + EmbeddedDemo.PAYMENT_170 + "/events", "/v1/blocks/events")) {
      ApiClient.Answer a = server.api().get(path);
      assertEquals(404, a.status(), path + ": " + a.body());
      assertEquals("not_following", a.json().get("error").asText(), path);
      assertTrue(a.json().get("detail").asText().contains("--follow"), a.body());
    }
    assertEquals(200, server.api().get("/v1/tx/" + EmbeddedDemo.PAYMENT_170).status());
  }
}
