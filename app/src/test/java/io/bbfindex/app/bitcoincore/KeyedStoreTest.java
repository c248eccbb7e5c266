package io.bbfindex.app.bitcoincore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.ManifestFile;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #15, keyed filters by default: every store gets its own secret salt, so false positives
 * ground against one store (from the public chain, or from another store) are ordinary negatives
 * for the next; the unsalted derivation only on request; the salt is never served.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyedStoreTest {
  private static final int GROUND = 20;

  @TempDir static Path tmp;
  private Path datadir;
  private Set<String> present;

  @BeforeAll
  void fixture() throws IOException {
    datadir = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
    present =
        Fixtures.txRows(Archive.REGTEST_B).stream().map(TxRow::txidHex).collect(Collectors.toSet());
  }

  private Path store(String name, boolean unsalted) throws IOException {
    Path filters = tmp.resolve(name);
    new CoreChainAccess()
        .open(
            ServeRequest.of(datadir, filters, tmp.resolve(name + "-work"), 0.01)
                .withStore(new StoreChoices(0.01, unsalted, false)),
            new PrintStream(OutputStream.nullOutputStream()))
        .close();
    return filters;
  }

  /** Random ids the summary of {@code store} says "maybe" for although the chain lacks them. */
  private List<byte[]> grindFalsePositives(Path store) throws IOException {
    List<byte[]> found = new ArrayList<>();
    Random r = new Random(42);
    try (FilterStore s = FilterStore.open(store)) {
      while (found.size() < GROUND) {
        byte[] id = new byte[32];
        r.nextBytes(id);
        if (s.mightContainTx(id, 0) && !present.contains(HashKeys.toDisplayHex(id))) {
          found.add(id);
        }
      }
    }
    return found;
  }

  private static long maybes(Path store, List<byte[]> ids) throws IOException {
    try (FilterStore s = FilterStore.open(store)) {
      return ids.stream().filter(id -> s.mightContainTx(id, 0)).count();
    }
  }

  @Test
  void storesAreSaltedByDefaultEachWithItsOwnSaltAndFalsePositivesDoNotCarryOver()
      throws IOException {
    Path a = store("salted-a", false);
    Path b = store("salted-b", false);
    long saltA = ManifestFile.read(a).salt();
    long saltB = ManifestFile.read(b).salt();
    assertNotEquals(0, saltA, "a default store is salted");
    assertNotEquals(saltA, saltB, "two stores of the same chain have different salts");

    List<byte[]> ground = grindFalsePositives(a);
    long carried = maybes(b, ground);
    // b's FPR is 1 %: of 20 ids, more than 4 "maybe"s by chance has probability < 1e-5
    assertTrue(carried <= 4, carried + " of " + GROUND + " ground false positives carry over");

    // a store opened again keeps its salt (a new one would rebuild every filter)
    store("salted-a", false);
    assertEquals(saltA, ManifestFile.read(a).salt(), "the salt is kept across runs");
  }

  @Test
  void unsaltedStoresOnRequestShareEveryFalsePositive() throws IOException {
    Path a = store("unsalted-a", true);
    Path b = store("unsalted-b", true);
    assertEquals(0, ManifestFile.read(a).salt(), "--unsalted builds the public derivation");
    List<byte[]> ground = grindFalsePositives(a);
    assertEquals(GROUND, maybes(b, ground), "what the salt protects against: identical filters");
  }

  @Test
  void theSaltIsNeverServed() throws Exception {
    Path filters = store("served", false);
    long salt = ManifestFile.read(filters).salt();
    byte[] le = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(salt).array();
    byte[] be = ByteBuffer.allocate(8).putLong(salt).array();
    List<String> forms =
        List.of(
            Long.toString(salt),
            Long.toUnsignedString(salt),
            Long.toHexString(salt),
            Long.toHexString(salt).toUpperCase(Locale.ROOT),
            HexFormat.of().formatHex(le),
            HexFormat.of().formatHex(be),
            Double.toString((double) salt));
    ChainBackend backend =
        new CoreChainAccess()
            .open(
                ServeRequest.of(datadir, filters, tmp.resolve("served-work"), 0.01),
                new PrintStream(OutputStream.nullOutputStream()));
    try (Service service =
        Service.start(
            backend,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      String txid = present.iterator().next();
      for (String path :
          List.of(
              "/v1/status",
              "/metrics",
              "/v1/filters",
              "/readyz",
              "/livez",
              "/v1/tx/" + txid,
              "/v1/tx/" + "00".repeat(32),
              "/nope")) {
        ApiClient.Answer a = api.get(path);
        String all = a.raw().headers().map() + "\n" + a.body();
        for (String form : forms) {
          assertFalse(
              all.toLowerCase(Locale.ROOT).contains(form.toLowerCase(Locale.ROOT)),
              path + " shows the salt as " + form);
        }
      }
      assertEquals(salt, ManifestFile.read(filters).salt(), "serving kept the store's salt");
    }
  }
}
