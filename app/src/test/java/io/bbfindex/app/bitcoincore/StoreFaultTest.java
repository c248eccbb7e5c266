package io.bbfindex.app.bitcoincore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #15 D1: the summary filter changed under a live server: truncated (at a page boundary, and
 * not: a mapping would read zeros past the cut or die of SIGBUS), rewritten in place, or a backup
 * of another store of the same chain copied over it in place. Lookups answer from the verified
 * in-memory copy, so every present txid stays 200 throughout (no 404, no 503, no lost response);
 * the change is noticed off the hot path and /readyz answers 503 with the reason; the store is
 * verified again (here: rebuilt) without a restart, /readyz is 200 again and the files on disk
 * verify.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreFaultTest {
  private static final int TXIDS = 2_000;
  private static final String SUMMARY = "tx-summary.bbf";

  @TempDir static Path tmp;
  private Path datadir;
  private Path backup;
  private List<TxRow> present;

  @BeforeAll
  void fixture() throws IOException {
    datadir = Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("data"));
    List<TxRow> all = Fixtures.txRows(Archive.REGTEST_MULTIFILE);
    Random r = new Random(15);
    present = r.ints(TXIDS, 0, all.size()).mapToObj(all::get).toList();
    // another store of the same chain: its own salt, so a valid summary that is not this store's
    Path other = tmp.resolve("backup-filters");
    CoreBackends.open(datadir, other).close();
    backup = tmp.resolve("backup-" + SUMMARY);
    Files.copy(other.resolve(SUMMARY), backup);
  }

  @Test
  void aSummaryTruncatedNotAtAPageBoundaryIsNeverAWrongAnswer() throws Exception {
    underFault("truncated", summary -> truncate(summary, size(summary) / 2 + 123));
  }

  @Test
  void aSummaryTruncatedAtAPageBoundaryIsNeverAWrongAnswer() throws Exception {
    underFault("truncated-aligned", summary -> truncate(summary, size(summary) / 2 & -4096L));
  }

  @Test
  void aSummaryRewrittenInPlaceIsNeverAWrongAnswer() throws Exception {
    underFault(
        "rewritten",
        summary -> {
          // same size, same inode, other bits
          try (FileChannel ch = FileChannel.open(summary, StandardOpenOption.WRITE)) {
            byte[] noise = new byte[(int) ch.size() - 4096];
            new Random(7).nextBytes(noise);
            ch.write(ByteBuffer.wrap(noise), 4096);
          }
        });
  }

  @Test
  void aBackupCopiedOverTheSummaryIsNeverAWrongAnswer() throws Exception {
    underFault(
        "backup-copied",
        // as cp does: the same inode, truncated and written again, with a valid filter file of
        // another store
        summary -> Files.write(summary, Files.readAllBytes(backup)));
  }

  /** A change made to the summary file. */
  @FunctionalInterface
  private interface Fault {
    void apply(Path summary) throws IOException;
  }

  private void underFault(String name, Fault fault) throws Exception {
    Path filters = tmp.resolve(name + "-filters");
    CoreChainBackend backend = (CoreChainBackend) CoreBackends.open(datadir, filters);
    try (Service service =
        Service.start(
            backend,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      // serve answers from the verified mappings until the copies are in (the next test covers
      // that window): these faults hit a server answering from its copies
      assertTrue(backend.awaitStoreCopies(Duration.ofSeconds(30)), "the copies came in");
      ApiClient api = new ApiClient(service.server().baseUrl());
      assertEquals(200, api.get("/readyz").status());
      assertEquals(TXIDS, count(api).getOrDefault(200, 0), "every txid present before the fault");

      // /readyz watched from before the fault: the not-ready window lasts as long as the
      // re-verification (seconds here), the lookups below may outlast it
      ReadyzWatch readyz = new ReadyzWatch(ApiClient.unrecorded(api.base()));
      Thread watch = Thread.ofPlatform().daemon().start(readyz);
      try {
        fault.apply(filters.resolve(SUMMARY));
        TreeMap<Integer, Integer> during = count(api);
        System.out.println(name + ": statuses right after the fault " + during);
        assertEquals(TXIDS, during.getOrDefault(200, 0), "every txid present during the fault");

        long deadline = System.nanoTime() + 45_000_000_000L;
        while ((readyz.notReady == null || api.get("/readyz").status() != 200)
            && System.nanoTime() < deadline) {
          TreeMap<Integer, Integer> meanwhile = count(api);
          assertEquals(
              TXIDS, meanwhile.getOrDefault(200, 0), "every txid present while re-verifying");
        }
      } finally {
        readyz.stop = true;
        watch.join();
      }
      ApiClient.Answer notReady = readyz.notReady;
      assertTrue(notReady != null, name + ": /readyz answered 503 after the change");
      System.out.println(name + ": /readyz " + notReady.body());
      String reason = notReady.json().get("detail").asText();
      assertTrue(
          reason.contains("changed on disk") && reason.contains(SUMMARY),
          "/readyz says what changed: " + reason);
      assertTrue(!reason.contains(filters.toString()), "/readyz names no local path: " + reason);
      assertEquals(200, api.get("/readyz").status(), "ready again once the store is rebuilt");
      assertEquals(TXIDS, count(api).getOrDefault(200, 0), "every txid present after the recovery");
      try (FilterStore onDisk = FilterStore.open(filters)) {
        assertTrue(onDisk.changedOnDisk().isEmpty(), "the store on disk verifies again");
      }
    }
  }

  /**
   * The summary rewritten in place while the server still answers from its verified mapping (its
   * copy held back): every present txid answers 200 or 503, never 404; /readyz turns 503 naming the
   * file; the copy of the changed file is refused; once the file holds its verified bytes again the
   * store is verified again and every txid answers 200.
   */
  @Test
  void aSummaryRewrittenWhileServedFromItsMappingIsA503NeverAWrong404() throws Exception {
    Path filters = tmp.resolve("mapped-filters");
    CoreBackends.open(datadir, filters).close(); // builds the store
    Path summary = filters.resolve(SUMMARY);
    byte[] verified = Files.readAllBytes(summary);
    List<Runnable> heldCopies = new java.util.concurrent.CopyOnWriteArrayList<>();
    CoreChainBackend backend =
        new CoreChainBackend(
            io.bbfindex.ingest.NodeIndex.open(datadir, tmp.resolve("mapped-work")),
            FilterStore.openMappedFirst(filters, heldCopies::add));
    try (Service service =
        Service.start(
            backend,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      assertEquals(TXIDS, count(api).getOrDefault(200, 0), "every txid present from the mapping");
      assertTrue(!backend.awaitStoreCopies(Duration.ZERO), "the copy is held back");

      try (FileChannel ch = FileChannel.open(summary, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.allocate(verified.length - 4096), 4096); // same size, bits cleared
      }
      TreeMap<Integer, Integer> during = count(api);
      System.out.println("mapped: statuses after the rewrite " + during);
      assertEquals(TXIDS, during.getOrDefault(200, 0) + during.getOrDefault(503, 0), "200 or 503");
      assertTrue(during.getOrDefault(503, 0) > 0, "lookups the changed bits would answer: 503");
      long deadline = System.nanoTime() + 10_000_000_000L;
      ApiClient.Answer readyz = api.get("/readyz");
      while (readyz.status() != 503 && System.nanoTime() < deadline) {
        Thread.sleep(50);
        readyz = api.get("/readyz");
      }
      assertEquals(503, readyz.status(), "not ready once the change is seen");
      assertTrue(readyz.body().contains(SUMMARY), readyz.body());

      heldCopies.forEach(Runnable::run); // the copy of the rewritten file fails its checksum
      assertTrue(!backend.awaitStoreCopies(Duration.ofSeconds(10)), "no copy of changed bits");
      assertEquals(TXIDS, count(api).getOrDefault(200, 0) + count(api).getOrDefault(503, 0));

      Files.write(summary, verified); // the verified bytes back: verified again, then served
      deadline = System.nanoTime() + 45_000_000_000L;
      while (api.get("/readyz").status() != 200 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertEquals(200, api.get("/readyz").status(), "ready again once the store verifies");
      assertEquals(TXIDS, count(api).getOrDefault(200, 0), "every txid present after recovery");
    }
  }

  /** Polls /readyz every 20 ms until stopped; keeps the first 503. */
  private static final class ReadyzWatch implements Runnable {
    private final ApiClient api;
    volatile boolean stop;
    volatile ApiClient.Answer notReady;

    ReadyzWatch(ApiClient api) {
      this.api = api;
    }

    @Override
    public void run() {
      while (!stop) {
        ApiClient.Answer a = api.get("/readyz");
        if (a.status() == 503 && notReady == null) {
          notReady = a;
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private final HttpClient http = HttpClient.newHttpClient();

  /**
   * Statuses of the present txids' lookups; -1: no answer within 3 s (what a fault that escapes the
   * handler gives), after 3 of which it stops.
   */
  private TreeMap<Integer, Integer> count(ApiClient api) throws InterruptedException {
    TreeMap<Integer, Integer> byStatus = new TreeMap<>();
    for (TxRow r : present) {
      int status;
      try {
        status =
            http.send(
                    HttpRequest.newBuilder(URI.create(api.base() + "/v1/tx/" + r.txidHex()))
                        .timeout(Duration.ofSeconds(3))
                        .build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode();
      } catch (IOException e) {
        status = -1;
      }
      byStatus.merge(status, 1, Integer::sum);
      if (byStatus.getOrDefault(-1, 0) >= 3) {
        break;
      }
    }
    return byStatus;
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void truncate(Path file, long size) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(size);
    }
  }
}
