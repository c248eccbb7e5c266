package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.InMemoryChainBackend;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} starts its HTTP server while the backend is still being opened (the store read and
 * verified): until the backend is handed over, the server is alive but answers no lookup from it.
 */
class StartWhileOpeningTest {
  @TempDir static Path tmp;
  static GroundTruth truth;

  @BeforeAll
  static void loadFixture() throws IOException {
    truth = GroundTruth.load(Archive.MAINNET_LDB, Fixtures.extract(Archive.MAINNET_LDB, tmp));
  }

  @Test
  void noLookupIsAnsweredBeforeTheBackendIsOpened() throws Exception {
    InMemoryChainBackend backend = new InMemoryChainBackend(truth, Set.of(), 599);
    CountDownLatch verify = new CountDownLatch(1);
    AtomicBoolean verified = new AtomicBoolean();
    CompletableFuture<Service> listening = new CompletableFuture<>();
    CompletableFuture<Service> started =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return StartWhileOpening.start(
                    () -> {
                      // stands for reading and verifying the store
                      try {
                        verify.await();
                      } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException();
                      }
                      verified.set(true);
                      return backend;
                    },
                    b -> {
                      Service s =
                          Service.start(
                              b,
                              new InetSocketAddress("127.0.0.1", 0),
                              HttpInitializer.DEFAULT_MAX_BODY_BYTES);
                      listening.complete(s);
                      return s;
                    });
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    ApiClient api = new ApiClient(listening.get(30, TimeUnit.SECONDS).server().baseUrl());
    String present = truth.txs().get(0).txidHex();

    assertEquals(200, api.get("/livez").status(), "alive at once");
    assertEquals(503, api.get("/readyz").status());
    assertEquals(503, api.get("/v1/tx/" + present).status());
    assertEquals(503, api.post("/v1/tx/lookup", "[\"" + present + "\"]").status());
    assertEquals(503, api.get("/v1/block/" + truth.blockAt(0).hashHex()).status());
    assertFalse(started.isDone(), "serve returns (prints 'listening') only with the backend in");
    assertFalse(verified.get());
    assertEquals(0, backend.leveldbReads(), "nothing reached the backend");
    assertFalse(api.get("/metrics").body().contains("bbf_index_tip_height"), "no tip yet");

    verify.countDown();
    try (Service service = started.get(30, TimeUnit.SECONDS)) {
      assertTrue(verified.get());
      assertEquals(200, api.get("/readyz").status());
      assertEquals(200, api.get("/v1/tx/" + present).status());
      assertEquals(1, backend.leveldbReads());
      assertTrue(
          api.get("/metrics").body().contains("bbf_filter_keys{filter=\"tx-summary\"}"),
          "the filter gauges are registered once the backend is in");
    }
  }

  @Test
  void aBackendThatFailsToOpenStopsTheServerAndIsReported() {
    IOException failure = new IOException("filter store refused");
    IOException thrown =
        assertThrows(
            IOException.class,
            () ->
                StartWhileOpening.start(
                    () -> {
                      throw failure;
                    },
                    b ->
                        Service.start(
                            b,
                            new InetSocketAddress("127.0.0.1", 0),
                            HttpInitializer.DEFAULT_MAX_BODY_BYTES)));
    assertEquals(failure, thrown);
  }
}
