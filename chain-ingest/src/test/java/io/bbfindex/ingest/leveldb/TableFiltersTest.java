package io.bbfindex.ingest.leveldb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.testing.CoreLevelDbWriter;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.HashedFixtures;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link TableFilters} through {@link LevelDbSnapshot#get}, on Bitcoin Core's own tables (the
 * fixtures): no key a table or log holds is ever refuted, real absent txids are refuted at about
 * the Bloom filters' false-positive rate and leveldbjni agrees with every refutation, and a table
 * whose filter cannot be trusted refutes nothing.
 */
class TableFiltersTest {

  private static final long SEED = 29_9L;

  @TempDir Path tmp;

  /** LevelDB's util/hash_test.cc (SignedUnsignedIssue), seed 0xbc9f1d34. */
  @Test
  void hashIsLevelDbsHashWithUnsignedTailBytes() {
    assertEquals(0xbc9f1d34, TableFilters.hash(new byte[0], false));
    assertEquals(0xef1345c4, TableFilters.hash(bytes(0x62), false));
    assertEquals(0x5b663814, TableFilters.hash(bytes(0xc3, 0x97), false));
    assertEquals(0x323c078f, TableFilters.hash(bytes(0xe2, 0x99, 0xa5), false));
    assertEquals(0xed21633a, TableFilters.hash(bytes(0xe1, 0x80, 0xb9, 0x32), false));
  }

  @Test
  void theSignedTailHashDiffersOnlyForTailBytesFromX80() {
    assertEquals(TableFilters.hash(bytes(0x62), false), TableFilters.hash(bytes(0x62), true));
    assertEquals(
        TableFilters.hash(bytes(0xe1, 0x80, 0xb9, 0x32), false),
        TableFilters.hash(bytes(0xe1, 0x80, 0xb9, 0x32), true),
        "no tail: four bytes are one word");
    assertNotEquals(
        TableFilters.hash(bytes(0xc3, 0x97), false), TableFilters.hash(bytes(0xc3, 0x97), true));
    assertTrue(TableFilters.hasHighTail(bytes(1, 2, 3, 4, 0x80)));
    assertTrue(!TableFilters.hasHighTail(bytes(0x80, 2, 3, 4, 0x7f)));
  }

  /** Every 't' row Core wrote (ground truth) is found, never refuted, in all four archives. */
  @ParameterizedTest
  @EnumSource(Archive.class)
  void everyGroundTruthTxidIsKept(Archive a) throws IOException {
    Path dd = Fixtures.extract(a, tmp.resolve("data"));
    try (LevelDbSnapshot db = LevelDbSnapshot.open(txindexDir(a, dd), tmp.resolve("snap"))) {
      List<Fixtures.TxRow> rows = Fixtures.txRows(a);
      for (Fixtures.TxRow row : rows) {
        assertNotNull(db.get(rowKey(row.txidInternal())), row.txidHex());
      }
      assertEquals(0, db.refutedGets());
      if (a != Archive.MAINNET_LEGACY) { // 0.16's index is all in its log, no table yet
        assertTrue(
            db.filterVerdicts().stream().anyMatch(v -> v.contains("trusted, unsigned tail")),
            db.filterVerdicts().toString());
      }
    }
  }

  /** Core 31.99's mixed txindex: its legacy 't' rows (table and log) are all found. */
  @Test
  void theMixedIndexKeepsEveryLegacyRow() throws IOException {
    Path dd = HashedFixtures.extract(HashedFixtures.Archive.MIXED, tmp.resolve("data"));
    try (LevelDbSnapshot db =
        LevelDbSnapshot.open(dd.resolve("indexes/txindex"), tmp.resolve("snap"))) {
      int legacy = 0;
      for (HashedFixtures.TruthRow r : HashedFixtures.rows(HashedFixtures.Archive.MIXED)) {
        if (r.indexRow().equals("t")) {
          assertNotNull(db.get(rowKey(r.txidInternal())), r.txidHex());
          legacy++;
        }
      }
      assertTrue(legacy > 0);
      assertEquals(0, db.refutedGets());
    }
  }

  /**
   * The 87,308 real mainnet txids, absent from the regtest archives (and mostly from mainnet's
   * blocks 0-599): refuted at about the filters' false-positive rate, and leveldbjni finds nothing
   * for every one refuted.
   */
  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "REGTEST_B", "REGTEST_MULTIFILE"})
  void realAbsentTxidsAreRefutedAndLevelDbAgrees(Archive a) throws IOException {
    Path dd = Fixtures.extract(a, tmp.resolve("data"));
    Set<String> known = new HashSet<>();
    Fixtures.txRows(a).forEach(r -> known.add(r.txidHex()));
    List<String> absent = Fixtures.realTxidsAbsentFrom(known, Integer.MAX_VALUE);
    assertRefutedAndAbsent(txindexDir(a, dd), absent, 0.95);
  }

  /**
   * The mixed archive's table has no filter block (build A rewrote it; see fixtures/README.md): it
   * refutes nothing, and answers as before.
   */
  @Test
  void theMixedIndexTableWithoutFilterRefutesNothing() throws IOException {
    Path dd = HashedFixtures.extract(HashedFixtures.Archive.MIXED, tmp.resolve("data"));
    Set<String> known = new HashSet<>();
    HashedFixtures.rows(HashedFixtures.Archive.MIXED).forEach(r -> known.add(r.txidHex()));
    List<byte[]> rows =
        HashedFixtures.rows(HashedFixtures.Archive.MIXED).stream()
            .filter(r -> r.indexRow().equals("t"))
            .map(r -> rowKey(r.txidInternal()))
            .toList();
    try (LevelDbSnapshot db =
        LevelDbSnapshot.open(dd.resolve("indexes/txindex"), tmp.resolve("snap"))) {
      assertEquals(
          List.of("000005: maybe for every key: no filter.leveldb.BuiltinBloomFilter2 block"),
          db.filterVerdicts());
      assertRefutedOnlyPastTheLastRow(db, Fixtures.realTxidsAbsentFrom(known, 5_000), rows);
    }
  }

  /**
   * Core's table with its filters rebuilt here from its own keys: with the unsigned-tail hash they
   * are byte for byte the filters Core wrote (so the hash, the bit positions and the filter-per-2
   * KiB layout are LevelDB's); with the signed-tail hash of older LevelDBs (as a table written
   * before the fix and never compacted since would hold), the check detects it and refutation stays
   * sound and effective.
   */
  @Test
  void filtersRebuiltFromTheTablesKeysAreCoresAndASignedTailTableIsDetected() throws IOException {
    Path table = regtestTable();
    Path txindex = table.getParent();
    byte[] core = Files.readAllBytes(table);
    byte[] unsigned = core.clone();
    rebuildFilters(unsigned, false);
    assertEquals(HexFormat.of().formatHex(core), HexFormat.of().formatHex(unsigned));
    byte[] signed = core.clone();
    rebuildFilters(signed, true);
    assertTrue(!Arrays.equals(core, signed), "txid keys have a tail byte >= 0x80");
    Files.write(table, signed);
    try (LevelDbSnapshot db = LevelDbSnapshot.open(txindex, tmp.resolve("snap"))) {
      assertTrue(
          db.filterVerdicts().stream().anyMatch(v -> v.startsWith("000005: trusted, signed tail")),
          db.filterVerdicts().toString());
      for (Fixtures.TxRow row : Fixtures.txRows(Archive.REGTEST_B)) {
        assertNotNull(db.get(rowKey(row.txidInternal())), row.txidHex());
      }
    }
    Set<String> known = new HashSet<>();
    Fixtures.txRows(Archive.REGTEST_B).forEach(r -> known.add(r.txidHex()));
    assertRefutedAndAbsent(txindex, Fixtures.realTxidsAbsentFrom(known, 20_000), 0.95);
  }

  /**
   * Rewrites every Bloom filter of the table in {@code b} from the keys of its data blocks, as
   * LevelDB's FilterBlockBuilder and BloomFilterPolicy::CreateFilter do (the filter sizes, set by
   * the key counts, are kept), with the signed- or unsigned-tail hash; then the block's CRC.
   */
  private static void rebuildFilters(byte[] b, boolean signedTail) {
    long[] handle = filterHandle(b);
    int start = (int) handle[0];
    int size = (int) handle[1];
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int baseLg = b[start + size - 1];
    int arrayOffset = le.getInt(start + size - 5);
    Map<Long, List<byte[]>> byFilter = new HashMap<>();
    TableFilters.userKeysByDataBlock(MemorySegment.ofArray(b))
        .forEach(
            (offset, keys) ->
                byFilter.computeIfAbsent(offset >> baseLg, i -> new ArrayList<>()).addAll(keys));
    for (int i = 0; start + arrayOffset + 4 * i < start + size - 5; i++) {
      int from = le.getInt(start + arrayOffset + 4 * i);
      int to = le.getInt(start + arrayOffset + 4 * i + 4);
      if (to - from < 2) {
        continue;
      }
      long bits = (to - from - 1) * 8L;
      int k = b[start + to - 1];
      Arrays.fill(b, start + from, start + to - 1, (byte) 0);
      for (byte[] key : byFilter.getOrDefault((long) i, List.of())) {
        int h = TableFilters.hash(key, signedTail);
        int delta = (h >>> 17) | (h << 15);
        for (int j = 0; j < k; j++) {
          long bit = Integer.toUnsignedLong(h) % bits;
          b[start + from + (int) (bit / 8)] |= (byte) (1 << (bit % 8));
          h += delta;
        }
      }
    }
    rewriteCrc(b, start, size);
  }

  /**
   * Any one byte of Core's table flipped (footer, metaindex, index, filter or data block): the
   * reader never throws, and never refutes a key the table holds. 400 seeded flips of mainnet's
   * txindex table (31 KB, 615 rows).
   */
  @Test
  void noFlippedByteAnywhereMakesAHeldKeyRefutedOrAnErrorEscape() throws IOException {
    Path txindex =
        Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("data")).resolve("indexes/txindex");
    String manifest = Files.readString(txindex.resolve("CURRENT")).strip();
    ManifestReplay.LiveFiles live =
        ManifestReplay.replay(
            txindex.resolve(manifest),
            LevelDbLog.read(Files.readAllBytes(txindex.resolve(manifest))).records());
    byte[] core = Files.readAllBytes(txindex.resolve("000005.ldb"));
    List<byte[]> held =
        Fixtures.txRows(Archive.MAINNET_LDB).stream().map(r -> rowKey(r.txidInternal())).toList();
    Path dir = Files.createDirectories(tmp.resolve("flips"));
    Random rnd = new Random(SEED);
    int distrusted = 0;
    for (int i = 0; i < 400; i++) {
      byte[] b = core.clone();
      int at = rnd.nextInt(b.length);
      b[at] ^= (byte) (1 << rnd.nextInt(8));
      Files.write(dir.resolve("000005.sst"), b);
      try (TableFilters filters = TableFilters.open(dir, live, List.of())) {
        for (byte[] key : held) {
          assertTrue(filters.mayContain(key), "seed " + SEED + ", flip " + i + " at " + at);
        }
        distrusted += filters.trustedTables() == 0 ? 1 : 0;
      }
    }
    assertTrue(distrusted > 0, "some flips hit a checked block");
  }

  /** A flipped byte in a table's filter block: its CRC fails, the table refutes nothing. */
  @Test
  void aFlippedByteInTheFilterBlockMakesTheTableMaybeForEveryKey() throws IOException {
    Path table = regtestTable();
    byte[] b = Files.readAllBytes(table);
    long[] filter = filterHandle(b);
    b[(int) (filter[0] + filter[1] / 2)] ^= 0x10; // mid-block: a bit array's byte
    Files.write(table, b);
    assertNothingRefutedAndRowsFound(Archive.REGTEST_B, table.getParent(), "filter block corrupt");
  }

  /**
   * A filter whose CRC is right but which does not hold the table's keys (as one written by a hash
   * this reader does not know would): the check against the table's own keys distrusts it.
   */
  @Test
  void aFilterThatDoesNotHoldTheTablesKeysIsTrustedForNothing() throws IOException {
    Path table = regtestTable();
    Path txindex = table.getParent();
    byte[] b = Files.readAllBytes(table);
    long[] filter = filterHandle(b);
    int start = (int) filter[0];
    int size = (int) filter[1];
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int arrayOffset = le.getInt(start + size - 5);
    Set<Integer> kBytes = new HashSet<>(); // each filter's last byte: its k
    for (int at = start + arrayOffset; at < start + size - 5; at += 4) {
      kBytes.add(le.getInt(at + 4) - 1); // a filter's end: the next one's start, or the array
    }
    for (int i = 0; i < arrayOffset; i++) {
      if (!kBytes.contains(i)) {
        b[start + i] = 0; // every bit array cleared
      }
    }
    rewriteCrc(b, start, size);
    Files.write(table, b);
    assertNothingRefutedAndRowsFound(
        Archive.REGTEST_B, txindex, "its filter does not hold keys the table holds");
  }

  /**
   * A table leveldbjni wrote (no filter policy: no filter block) is maybe for every key, and keys
   * written after the last table, only in the log, are never refuted.
   */
  @Test
  void aTableWithoutFilterBlockAndKeysOnlyInTheLogAreNeverRefuted() throws IOException {
    Path dd = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
    Path txindex = dd.resolve("indexes/txindex");
    Random rnd = new Random(SEED);
    Map<byte[], byte[]> puts = new LinkedHashMap<>();
    for (int i = 0; i < 2_000; i++) {
      byte[] txid = new byte[32];
      rnd.nextBytes(txid);
      puts.put(rowKey(txid), new byte[] {1, 2, 3});
    }
    CoreLevelDbWriter.putAll(txindex, puts); // replays 000006.log into a table without filter
    try (LevelDbSnapshot db = LevelDbSnapshot.open(txindex, tmp.resolve("snap"))) {
      for (byte[] key : puts.keySet()) {
        assertNotNull(db.get(key));
      }
      assertEquals(0, db.refutedGets());
      assertTrue(
          db.filterVerdicts().stream()
              .anyMatch(v -> v.contains("no filter.leveldb.BuiltinBloomFilter2 block")),
          db.filterVerdicts().toString());
      for (Fixtures.TxRow row : Fixtures.txRows(Archive.REGTEST_B)) {
        assertNotNull(db.get(rowKey(row.txidInternal())), row.txidHex());
      }
    }
  }

  /** The one table of REGTEST_B's txindex (Core 0.21.1, with its filter block), extracted. */
  private Path regtestTable() throws IOException {
    Path dd = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
    return dd.resolve("indexes/txindex/000005.ldb");
  }

  private void assertNothingRefutedAndRowsFound(Archive a, Path txindex, String verdict)
      throws IOException {
    try (LevelDbSnapshot db = LevelDbSnapshot.open(txindex, tmp.resolve("snap"))) {
      assertTrue(
          db.filterVerdicts().stream().anyMatch(v -> v.contains(verdict)),
          db.filterVerdicts().toString());
      for (Fixtures.TxRow row : Fixtures.txRows(a)) {
        assertNotNull(db.get(rowKey(row.txidInternal())), row.txidHex());
      }
      List<byte[]> rows = Fixtures.txRows(a).stream().map(r -> rowKey(r.txidInternal())).toList();
      assertRefutedOnlyPastTheLastRow(db, Fixtures.realTxidsAbsentFrom(Set.of(), 5_000), rows);
    }
  }

  /**
   * Gets {@code absent}: none may be refuted by a filter. Only a key past the last row of every
   * table is refuted (by the tables' key ranges, as LevelDB's get finds it in none), and LevelDB
   * agrees.
   */
  private static void assertRefutedOnlyPastTheLastRow(
      LevelDbSnapshot db, List<String> absent, List<byte[]> rows) throws IOException {
    byte[] last = rows.stream().max(Arrays::compareUnsigned).orElseThrow();
    for (String txid : absent) {
      byte[] key = rowKey(Fixtures.internal(txid));
      long before = db.refutedGets();
      assertNull(db.get(key));
      if (db.refutedGets() > before) {
        assertTrue(Arrays.compareUnsigned(key, last) > 0, "refuted by a distrusted filter");
        assertNull(db.getFromLevelDb(key));
      }
    }
    assertTrue(db.refutedGets() < absent.size() / 100, "refuted " + db.refutedGets());
  }

  private void assertRefutedAndAbsent(Path txindex, List<String> absent, double minRefuted)
      throws IOException {
    try (LevelDbSnapshot db = LevelDbSnapshot.open(txindex, Files.createTempDirectory(tmp, "s"))) {
      long refuted = 0;
      for (String txid : absent) {
        byte[] key = rowKey(Fixtures.internal(txid));
        long before = db.refutedGets();
        byte[] value = db.get(key);
        if (db.refutedGets() > before) {
          refuted++;
          assertNull(db.getFromLevelDb(key), "refuted but LevelDB holds " + txid);
        } else {
          assertNull(value, txid + " is not in the fixture");
        }
      }
      double rate = (double) refuted / absent.size();
      System.out.printf(
          "%s: %d of %d absent txids refuted (%.4f); %s%n",
          txindex, refuted, absent.size(), rate, db.filterVerdicts());
      assertTrue(rate >= minRefuted, "refuted " + rate + " " + db.filterVerdicts());
    }
  }

  /** The {offset, size} of the table's filter block, read from its metaindex entry. */
  private static long[] filterHandle(byte[] table) {
    byte[] name = "filter.leveldb.BuiltinBloomFilter2".getBytes(StandardCharsets.US_ASCII);
    int at = indexOf(table, name);
    assertTrue(at >= 0, "the table has no filter block");
    int[] pos = {at + name.length};
    return new long[] {varint(table, pos), varint(table, pos)};
  }

  private static void rewriteCrc(byte[] b, int start, int size) {
    CRC32C crc = new CRC32C();
    crc.update(b, start, size + 1);
    int c = (int) crc.getValue();
    int masked = ((c >>> 15) | (c << 17)) + 0xa282ead8;
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(start + size + 1, masked);
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static long varint(byte[] b, int[] pos) {
    long v = 0;
    for (int shift = 0; ; shift += 7) {
      int x = b[pos[0]++];
      v |= (long) (x & 0x7f) << shift;
      if ((x & 0x80) == 0) {
        return v;
      }
    }
  }

  private static Path txindexDir(Archive a, Path dd) {
    return a == Archive.MAINNET_LEGACY ? dd.resolve("blocks/index") : dd.resolve("indexes/txindex");
  }

  private static byte[] rowKey(byte[] txidInternal) {
    byte[] k = new byte[33];
    k[0] = 't';
    System.arraycopy(txidInternal, 0, k, 1, 32);
    return k;
  }

  private static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }
}
