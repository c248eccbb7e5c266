package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.bitcoin.Finality;
import io.bbfindex.app.lookup.ChainStatus;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.testing.InMemoryChainBackend;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web conventions browser wallets and caches rely on, against a real server on 127.0.0.1 over
 * the mainnet 0-599 fixture's real ground truth: CORS (preflight and cross-origin GET), {@code
 * Cache-Control} by finality, and {@code HEAD} on every {@code GET} route.
 */
class WebConventionsTest {
  private static final String WALLET = "https://wallet.example";
  private static final String PAYMENT_170 =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

  @TempDir static Path tmp;
  static GroundTruth truth;
  static Service service;
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @BeforeAll
  static void start() throws IOException {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, tmp);
    truth = GroundTruth.load(Archive.MAINNET_LDB, datadir);
    service = start(599, List.of(WALLET, "http://localhost:3000"));
  }

  private static Service start(int tip, List<String> origins) throws IOException {
    return Service.start(
        new InMemoryChainBackend(truth, Set.of(), tip),
        null,
        new InetSocketAddress("127.0.0.1", 0),
        HttpInitializer.DEFAULT_MAX_BODY_BYTES,
        HttpOptions.DEFAULTS.withCorsOrigins(origins));
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
  }

  static HttpResponse<String> send(Service s, String method, String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(s.server().baseUrl() + path))
            .timeout(Duration.ofSeconds(30))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      b.headers(headers);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String header(HttpResponse<?> r, String name) {
    return r.headers().firstValue(name).orElse(null);
  }

  @Test
  void aBrowserPreflightIsAnsweredForAnAllowedOrigin() throws Exception {
    HttpResponse<String> r =
        send(
            service,
            "OPTIONS",
            "/v1/tx/lookup",
            "Origin",
            WALLET,
            "Access-Control-Request-Method",
            "POST",
            "Access-Control-Request-Headers",
            "content-type");
    assertEquals(200, r.statusCode());
    assertEquals(WALLET, header(r, "Access-Control-Allow-Origin"));
    String methods = header(r, "Access-Control-Allow-Methods");
    assertTrue(
        methods.contains("GET") && methods.contains("POST") && methods.contains("HEAD"), methods);
    assertTrue(
        header(r, "Access-Control-Allow-Headers")
            .toLowerCase(java.util.Locale.ROOT)
            .contains("content-type"));
    assertEquals("7200", header(r, "Access-Control-Max-Age"));
    assertEquals("origin", header(r, "Vary").toLowerCase(java.util.Locale.ROOT));
  }

  @Test
  void aCrossOriginGetGetsAllowOriginAndVaryAndOtherOriginsGetNone() throws Exception {
    HttpResponse<String> allowed = send(service, "GET", "/v1/tx/" + PAYMENT_170, "Origin", WALLET);
    assertEquals(200, allowed.statusCode());
    assertEquals(WALLET, header(allowed, "Access-Control-Allow-Origin"));
    assertEquals("origin", header(allowed, "Vary").toLowerCase(java.util.Locale.ROOT));
    assertTrue(
        header(allowed, "Access-Control-Expose-Headers")
            .toLowerCase(java.util.Locale.ROOT)
            .contains("retry-after"));

    HttpResponse<String> other =
        send(service, "GET", "/v1/tx/" + PAYMENT_170, "Origin", "https://evil.example");
    assertEquals(200, other.statusCode(), "served, but the browser will not show it to the page");
    assertNull(header(other, "Access-Control-Allow-Origin"));
    assertEquals("origin", header(other, "Vary").toLowerCase(java.util.Locale.ROOT));

    HttpResponse<String> none = send(service, "GET", "/v1/tx/" + PAYMENT_170);
    assertNull(header(none, "Access-Control-Allow-Origin"));
    assertEquals(
        "origin",
        header(none, "Vary").toLowerCase(java.util.Locale.ROOT),
        "cached copies depend on Origin");
  }

  @Test
  void anyOriginAnswersWithAStar() throws Exception {
    try (Service any = start(599, List.of("*"))) {
      HttpResponse<String> r = send(any, "GET", "/v1/status", "Origin", "https://x.example");
      assertEquals("*", header(r, "Access-Control-Allow-Origin"));
    }
  }

  @Test
  void withoutCorsOriginsNoCorsHeadersAreWritten() throws Exception {
    try (Service plain = start(599, List.of())) {
      HttpResponse<String> r = send(plain, "GET", "/v1/status", "Origin", WALLET);
      assertNull(header(r, "Access-Control-Allow-Origin"));
      assertNull(header(r, "Vary"));
    }
  }

  /** Confirmations as the fixture's tip 599 gives them: tip - height + 1. */
  private static GroundTruth.Tx txWithConfirmations(int min, int max) {
    return truth.txs().stream()
        .filter(t -> 599 - t.block().height() + 1 >= min && 599 - t.block().height() + 1 <= max)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void cacheControlFollowsFinality() throws Exception {
    GroundTruth.Tx deep = txWithConfirmations(100, 10_000);
    GroundTruth.Tx settled = txWithConfirmations(6, 99);
    GroundTruth.Tx shallow = txWithConfirmations(1, 5);
    assertEquals(
        "public, max-age=86400, immutable",
        header(send(service, "GET", "/v1/tx/" + deep.txidHex()), "Cache-Control"));
    assertEquals(
        "public, max-age=86400, immutable",
        header(send(service, "GET", "/v1/block/" + deep.block().hashHex()), "Cache-Control"));
    assertEquals(
        "public, max-age=60",
        header(send(service, "GET", "/v1/tx/" + settled.txidHex()), "Cache-Control"));
    assertEquals(
        "no-store", header(send(service, "GET", "/v1/tx/" + shallow.txidHex()), "Cache-Control"));
    HttpResponse<String> unknown = send(service, "GET", "/v1/tx/" + "00".repeat(32));
    assertEquals(404, unknown.statusCode());
    assertEquals("no-store", header(unknown, "Cache-Control"));
    for (String path :
        List.of("/v1/status", "/v1/filters", "/livez", "/readyz", "/metrics", "/nope")) {
      assertEquals("no-store", header(send(service, "GET", path), "Cache-Control"), path);
    }
    assertEquals(
        "no-store", header(send(service, "GET", "/v1/tx/" + "zz"), "Cache-Control"), "a 400");
  }

  @Test
  void staleAndMempoolAnswersAreNeverStored() throws Exception {
    try (Service reorged = start(590, List.of())) {
      GroundTruth.Tx above =
          truth.txs().stream().filter(t -> t.block().height() > 590).findFirst().orElseThrow();
      HttpResponse<String> r = send(reorged, "GET", "/v1/tx/" + above.txidHex());
      assertTrue(r.body().contains("\"stale\""), r.body());
      assertEquals("no-store", header(r, "Cache-Control"));
    }
    // No fixture has a mempool (that takes a running node); the policy for its answer:
    TxAnswer mempool = TxAnswer.mempool();
    assertEquals(ChainStatus.MEMPOOL, mempool.status());
    assertEquals(
        "no-store", Finality.cacheControl(mempool.status(), mempool.confirmations()).toString());
  }

  @Test
  void headOnEveryGetRouteHasTheGetHeadersAndNoBody() throws Exception {
    for (String path :
        List.of(
            "/v1/tx/" + PAYMENT_170,
            "/v1/tx/" + "00".repeat(32),
            "/v1/block/" + txWithConfirmations(100, 10_000).block().hashHex(),
            "/v1/filters",
            "/v1/status",
            "/metrics",
            "/livez",
            "/readyz")) {
      HttpResponse<String> get = send(service, "GET", path);
      HttpResponse<String> head = send(service, "HEAD", path);
      assertEquals(get.statusCode(), head.statusCode(), path);
      assertEquals("", head.body(), path);
      assertEquals(header(get, "Content-Type"), header(head, "Content-Type"), path);
      assertEquals(header(get, "Cache-Control"), header(head, "Cache-Control"), path);
      if (!path.equals("/metrics")) { // the metrics text changes between the two requests
        assertEquals(header(get, "Content-Length"), header(head, "Content-Length"), path);
      }
    }
  }

  @Test
  void aWrongMethodOnAGetRouteListsGetAndHead() throws Exception {
    HttpResponse<String> r = send(service, "DELETE", "/v1/status");
    assertEquals(405, r.statusCode());
    assertEquals("GET, HEAD", header(r, "Allow"));
    HttpResponse<String> post = send(service, "HEAD", "/v1/tx/lookup");
    assertEquals(405, post.statusCode());
    assertEquals("POST", header(post, "Allow"));
  }
}
