package io.bbfindex.app.wallet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.app.testing.TxBytes;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.GroundTruth;
import io.bbfindex.ingest.testing.HashedFixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fault injection over every route that serves stored bytes, on every txindex layout Core writes:
 * one bit of a real Core data directory's blk file is flipped under a transaction's txid-covered
 * bytes, under its witness, and under its block's header (the way disk rot changes a file: in
 * place, its size kept), and every answer of a fresh server over the damaged directory must be
 * either the answer the undamaged directory gave or a 500 {@code store_inconsistent}, counted in
 * {@code bbf_store_inconsistent_total}: never other bytes, never a 404 for an indexed transaction.
 * The location routes ({@code GET /v1/tx/{txid}}, both forms of {@code POST /v1/tx/lookup}) are
 * held to the same rule: on a hashed txindex the lookup itself reads the damaged bytes.
 *
 * <p>The fixtures carry segwit transactions (regtest wallets spending bech32 and p2sh-segwit
 * outputs): {@code core-0.21.1-regtest-txindex-B} (legacy {@code t} rows), {@code
 * core-31.99-regtest-hashed-multifile} ({@code x} rows only) and {@code core-31.99-regtest-mixed}
 * ({@code t} rows to height 150, {@code x} rows after).
 */
class ByteFaultInjectionTest {

  /** One txindex row of a fixture's truth table. */
  record Indexed(
      String txid,
      int file,
      long dataPos,
      long txOffset,
      String blockHash,
      int height,
      boolean active,
      String row) {

    long txStart() {
      return dataPos + 80 + txOffset;
    }
  }

  /** Where the bit is flipped. */
  enum Damage {
    /** The lock time's last byte: a txid-covered byte, the transaction still parses. */
    TXID_BYTES,
    /** The first byte of the first non-empty witness item: no length changes. */
    WITNESS_BYTES,
    /** The nonce of the transaction's block header. */
    HEADER
  }

  /** A fixture and the damage done to it: which row kind each damaged transaction is taken from. */
  enum Layout {
    LEGACY("t", "t", "t"),
    HASHED("x", "x", "x"),
    MIXED("x", "t", "x");

    private final String txidRow;
    private final String witnessRow;
    private final String headerRow;

    Layout(String txidRow, String witnessRow, String headerRow) {
      this.txidRow = txidRow;
      this.witnessRow = witnessRow;
      this.headerRow = headerRow;
    }

    String rowOf(Damage d) {
      return switch (d) {
        case TXID_BYTES -> txidRow;
        case WITNESS_BYTES -> witnessRow;
        case HEADER -> headerRow;
      };
    }
  }

  private static final String[] TX_ROUTES = {
    "/v1/tx/%s",
    "/v1/tx/%s/hex",
    "/v1/tx/%s/raw",
    "/v1/tx/%s/merkle-proof",
    "/api/tx/%s",
    "/api/tx/%s/hex",
    "/api/tx/%s/raw",
    "/api/tx/%s/status",
    "/api/tx/%s/merkle-proof",
    "/api/tx/%s/merkleblock-proof"
  };

  private static final String[] BLOCK_ROUTES = {
    "/api/block/%s/raw", "/api/block/%s", "/api/block/%s/header", "/api/block/%s/txids"
  };

  /** One damaged transaction (its block damaged instead for {@link Damage#HEADER}). */
  record Target(Damage damage, Indexed tx, long flippedAt) {}

  private static final String BATCH_JSON = "/v1/tx/lookup";
  private static final String BATCH_BINARY = "/v1/tx/lookup?binary";

  @TempDir Path tmp;

  @ParameterizedTest
  @EnumSource(Layout.class)
  void everyByteServingRouteAnswersRightOrStoreInconsistent(Layout layout) throws IOException {
    Path datadir = extract(layout);
    List<Indexed> indexed = indexed(layout, datadir);
    Path filters = tmp.resolve("filters");

    Map<String, Answer> pristine;
    List<Target> targets;
    List<String> paths;
    try (Service service = CoreBackends.serve(datadir, filters)) {
      ApiClient api = ApiClient.unrecorded(service.server().baseUrl());
      targets = chooseTargets(layout, indexed, api);
      paths = paths(indexed, targets);
      pristine = answers(api, paths);
      for (Target t : targets) {
        assertEquals(200, pristine.get("/v1/tx/" + t.tx().txid() + "/hex").status(), t.toString());
      }
    }

    for (Target t : targets) {
      flipBit(datadir, t.tx().file(), t.flippedAt());
    }

    try (Service service = CoreBackends.serve(datadir, filters)) {
      ApiClient api = ApiClient.unrecorded(service.server().baseUrl());
      Map<String, Answer> damaged = answers(api, paths);
      List<String> wrong = new ArrayList<>();
      int refused = 0;
      for (String path : damaged.keySet()) {
        Answer before = pristine.get(path);
        Answer after = damaged.get(path);
        if (after.equals(before)) {
          continue;
        }
        if (after.status() == 500 && refusedAsInconsistent(path, after)) {
          refused++;
          continue;
        }
        wrong.add(
            path
                + ": "
                + after.status()
                + " "
                + after.text()
                + " (undamaged: "
                + before.status()
                + ")");
      }
      assertTrue(
          wrong.isEmpty(),
          layout
              + ", "
              + targets
              + ": "
              + wrong.size()
              + " wrong answers:\n"
              + String.join("\n", wrong));
      for (Target t : targets) {
        String hex = "/v1/tx/" + t.tx().txid() + "/hex";
        if (t.damage() != Damage.HEADER) {
          assertEquals(500, damaged.get(hex).status(), t + " " + damaged.get(hex).text());
        }
        String raw = "/api/block/" + t.tx().blockHash() + "/raw";
        assertEquals(500, damaged.get(raw).status(), t + " " + damaged.get(raw).text());
      }
      assertEquals(
          refused, (int) api.metric("bbf_store_inconsistent_total"), "every refusal is counted");
    }
  }

  /** A status and body, compared byte for byte. */
  record Answer(int status, byte[] body) {
    String text() {
      String s = new String(body, StandardCharsets.ISO_8859_1);
      return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Answer a && a.status == status && Arrays.equals(a.body, body);
    }

    @Override
    public int hashCode() {
      return 31 * status + Arrays.hashCode(body);
    }
  }

  /** A JSON route's 500 names {@code store_inconsistent}; esplora's plain text names the file. */
  private static boolean refusedAsInconsistent(String path, Answer a) {
    String body = new String(a.body(), StandardCharsets.UTF_8);
    if (path.startsWith("/v1/")) {
      return body.contains("\"error\":\"store_inconsistent\"");
    }
    return body.contains("blk0");
  }

  /**
   * The answers to every path, and to both forms of {@code POST /v1/tx/lookup} over every txid the
   * paths name (keys {@link #BATCH_JSON} and {@link #BATCH_BINARY}).
   */
  private static Map<String, Answer> answers(ApiClient api, List<String> paths) {
    Map<String, Answer> out = new LinkedHashMap<>();
    Set<String> txids = new LinkedHashSet<>();
    for (String p : paths) {
      HttpResponse<byte[]> r = api.getBytes(p);
      out.put(p, new Answer(r.statusCode(), r.body()));
      if (p.startsWith("/v1/tx/") && p.length() == "/v1/tx/".length() + 64) {
        txids.add(p.substring("/v1/tx/".length()));
      }
    }
    String json = "[\"" + String.join("\",\"", txids) + "\"]";
    HttpResponse<byte[]> r =
        api.postBytes(BATCH_JSON, "application/json", json.getBytes(StandardCharsets.US_ASCII));
    out.put(BATCH_JSON, new Answer(r.statusCode(), r.body()));
    ByteArrayOutputStream keys = new ByteArrayOutputStream();
    for (String id : txids) {
      keys.writeBytes(TxBytes.internal(id));
    }
    r = api.postBytes(BATCH_BINARY, "application/octet-stream", keys.toByteArray());
    out.put(BATCH_BINARY, new Answer(r.statusCode(), r.body()));
    return out;
  }

  /**
   * The damaged transactions (segwit ones, each in its own block, the newest first) with the
   * position of the bit to flip, found from their undamaged bytes as served.
   */
  private static List<Target> chooseTargets(Layout layout, List<Indexed> indexed, ApiClient api) {
    List<Target> targets = new ArrayList<>();
    Set<String> blocks = new HashSet<>();
    List<Indexed> newestFirst =
        indexed.stream()
            .filter(Indexed::active)
            .sorted(Comparator.comparingInt(Indexed::height).reversed())
            .toList();
    for (Damage d : Damage.values()) {
      Target found = null;
      for (Indexed tx : newestFirst) {
        if (!tx.row().equals(layout.rowOf(d)) || blocks.contains(tx.blockHash())) {
          continue;
        }
        HttpResponse<byte[]> raw = api.getBytes("/v1/tx/" + tx.txid() + "/raw");
        assertEquals(200, raw.statusCode(), tx.toString());
        TxBytes parsed = new TxBytes(raw.body());
        assertEquals(tx.txid(), parsed.txidHex);
        if (parsed.coinbase() || parsed.firstWitnessData < 0) {
          continue;
        }
        long at =
            switch (d) {
              case TXID_BYTES -> tx.txStart() + raw.body().length - 1;
              case WITNESS_BYTES -> tx.txStart() + parsed.firstWitnessData;
              case HEADER -> tx.dataPos() + 76;
            };
        found = new Target(d, tx, at);
        break;
      }
      assertTrue(found != null, layout + ": no segwit transaction for " + d);
      blocks.add(found.tx().blockHash());
      targets.add(found);
    }
    return targets;
  }

  /**
   * Every route over the damaged transactions, every transaction of their blocks, and a sample of
   * the others (every 40th indexed active transaction); the block routes over their blocks.
   */
  private static List<String> paths(List<Indexed> indexed, List<Target> targets) {
    Set<String> blocks = new LinkedHashSet<>();
    Set<String> txids = new LinkedHashSet<>();
    for (Target t : targets) {
      blocks.add(t.tx().blockHash());
    }
    for (int i = 0; i < indexed.size(); i++) {
      Indexed tx = indexed.get(i);
      if (tx.active() && (blocks.contains(tx.blockHash()) || i % 40 == 0)) {
        txids.add(tx.txid());
        if (i % 40 == 0) {
          blocks.add(tx.blockHash());
        }
      }
    }
    List<String> paths = new ArrayList<>();
    for (String id : txids) {
      for (String r : TX_ROUTES) {
        paths.add(String.format(Locale.ROOT, r, id));
      }
    }
    for (String b : blocks) {
      for (String r : BLOCK_ROUTES) {
        paths.add(String.format(Locale.ROOT, r, b));
      }
    }
    return paths;
  }

  private static void flipBit(Path datadir, int file, long at) throws IOException {
    Path blk = datadir.resolve(String.format(Locale.ROOT, "blocks/blk%05d.dat", file));
    try (RandomAccessFile f = new RandomAccessFile(blk.toFile(), "rw")) {
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0x01); // XOR obfuscation (Core >= 28) is bitwise: the plain bit flips too
    }
  }

  private Path extract(Layout layout) throws IOException {
    return switch (layout) {
      case LEGACY -> Fixtures.extract(Fixtures.Archive.REGTEST_B, tmp);
      case HASHED -> HashedFixtures.extract(HashedFixtures.Archive.HASHED_MULTIFILE, tmp);
      case MIXED -> HashedFixtures.extract(HashedFixtures.Archive.MIXED, tmp);
    };
  }

  /** The fixture's indexed transactions (the genesis coinbase, never indexed, left out). */
  private static List<Indexed> indexed(Layout layout, Path datadir) throws IOException {
    if (layout == Layout.LEGACY) {
      return GroundTruth.load(Fixtures.Archive.REGTEST_B, datadir).txs().stream()
          .map(
              t ->
                  new Indexed(
                      t.txidHex(),
                      t.file(),
                      t.dataPos(),
                      t.txOffset(),
                      t.block().hashHex(),
                      t.block().height(),
                      t.block().onActiveChain(),
                      "t"))
          .toList();
    }
    HashedFixtures.Archive a =
        layout == Layout.HASHED
            ? HashedFixtures.Archive.HASHED_MULTIFILE
            : HashedFixtures.Archive.MIXED;
    return HashedFixtures.expectedAnswers(a).values().stream()
        .filter(HashedFixtures.TruthRow::inTxindex)
        .map(
            r ->
                new Indexed(
                    r.txidHex(),
                    r.file(),
                    r.pos(),
                    r.txOffset(),
                    r.blockHashHex(),
                    r.height(),
                    r.active(),
                    r.indexRow()))
        .toList();
  }
}
