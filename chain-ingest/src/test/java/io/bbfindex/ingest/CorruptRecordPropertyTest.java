package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bbfindex.ingest.chain.ActiveChain;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.records.BlockLocator;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.DiskBlockIndex;
import io.bbfindex.ingest.records.DiskTxPos;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bitcoinj.core.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Seeded property tests over REAL values taken from the fixtures' LevelDBs: every truncation and
 * random garblings of 'b', 't', 'f' and 'B' values either raise {@link CorruptRecordException} or
 * decode to something the integrity checks downstream reject; never a wrong answer, never another
 * exception (an allocation from an unchecked length would show up as OutOfMemoryError or
 * NegativeArraySizeException).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CorruptRecordPropertyTest {

  private static final long SEED = 20261121L;
  private static final int GARBLES_PER_VALUE = 12;

  @TempDir static Path tmp;

  /** Real raw values per archive, by record kind. */
  private record RawRecords(List<byte[][]> b, List<byte[][]> t, List<byte[][]> f, byte[] locator) {}

  private final Map<Archive, RawRecords> raw = new EnumMap<>(Archive.class);
  private final Map<Archive, NodeIndex> indexes = new EnumMap<>(Archive.class);

  @BeforeAll
  void collect() throws IOException {
    for (Archive a : List.of(Archive.MAINNET_LDB, Archive.MAINNET_LEGACY, Archive.REGTEST_B)) {
      Path dd = Fixtures.extract(a, tmp.resolve(a.name()));
      indexes.put(a, NodeIndex.open(dd, tmp.resolve("work-" + a.name())));
      Path txdir =
          a == Archive.MAINNET_LEGACY ? dd.resolve("blocks/index") : dd.resolve("indexes/txindex");
      try (LevelDbSnapshot blocks =
              LevelDbSnapshot.open(dd.resolve("blocks/index"), tmp.resolve("raw-b-" + a));
          LevelDbSnapshot txs = LevelDbSnapshot.open(txdir, tmp.resolve("raw-t-" + a))) {
        raw.put(
            a,
            new RawRecords(
                prefixed(blocks, DbKeys.BLOCK_INDEX),
                prefixed(txs, DbKeys.TX_INDEX),
                prefixed(blocks, DbKeys.BLOCK_FILES),
                txs.get(new byte[] {DbKeys.BEST_BLOCK})));
      }
    }
  }

  @AfterAll
  void close() throws IOException {
    for (NodeIndex idx : indexes.values()) {
      idx.close();
    }
  }

  private static List<byte[][]> prefixed(LevelDbSnapshot db, byte prefix) throws IOException {
    List<byte[][]> out = new ArrayList<>();
    db.scan(prefix, (k, v) -> out.add(new byte[][] {k, v}));
    return out;
  }

  // ------------------------------------------------------------------ 'b'

  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "MAINNET_LEGACY", "REGTEST_B"})
  void blockIndexValues(Archive a) throws IOException {
    List<byte[][]> records = raw.get(a).b();
    assertEquals(indexes.get(a).blocks().size(), records.size());
    List<DiskBlockIndex> originals = new ArrayList<>();
    for (byte[][] kv : records) {
      originals.add(DiskBlockIndex.decode(kv[0], kv[1]));
    }
    Random rnd = new Random(SEED);
    int decodedAfterGarbling = 0;
    for (int i = 0; i < records.size(); i++) {
      byte[] key = records.get(i)[0];
      byte[] value = records.get(i)[1];
      for (int len = 0; len < value.length; len++) {
        byte[] cut = Arrays.copyOf(value, len);
        assertThrows(
            CorruptRecordException.class,
            () -> DiskBlockIndex.decode(key, cut),
            "truncated to " + len);
      }
      for (int g = 0; g < GARBLES_PER_VALUE; g++) {
        byte[] bad = garble(value, rnd);
        DiskBlockIndex decoded;
        try {
          decoded = DiskBlockIndex.decode(key, bad);
        } catch (CorruptRecordException expected) {
          continue;
        }
        decodedAfterGarbling++;
        DiskBlockIndex orig = originals.get(i);
        // The header is authenticated by the key: only the VARINT prefix can have changed.
        assertArrayEquals(orig.header(), decoded.header(), "seed " + SEED);
        if (decoded.height() != orig.height()) {
          List<DiskBlockIndex> replaced = new ArrayList<>(originals);
          replaced.set(i, decoded);
          assertThrows(
              CorruptRecordException.class,
              () -> ActiveChain.compute(replaced),
              "a garbled height must break the parent links; seed " + SEED);
        }
        if (decoded.dataPos() >= 0
            && (decoded.file() != orig.file() || decoded.dataPos() != orig.dataPos())) {
          assertWrongPositionIsCaught(indexes.get(a), decoded);
        }
      }
    }
    System.out.printf(
        "%s: %d 'b' values, %d garbles decoded (header intact, checked downstream)%n",
        a, records.size(), decodedAfterGarbling);
  }

  private static void assertWrongPositionIsCaught(NodeIndex idx, DiskBlockIndex decoded) {
    try {
      byte[] header = idx.blockFileReader().readHeader(decoded.file(), decoded.dataPos());
      assertNotEquals(
          Arrays.toString(decoded.header()),
          Arrays.toString(header),
          "a garbled position must not hold the block's header; seed " + SEED);
    } catch (IOException expected) {
      // CorruptRecordException (bad magic/size/bounds) or NoSuchFileException (no such blk file)
    }
  }

  // ------------------------------------------------------------------ 't'

  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "MAINNET_LEGACY", "REGTEST_B"})
  void txIndexValuesAreNeverResolvedToAWrongTransaction(Archive a) throws IOException {
    NodeIndex idx = indexes.get(a);
    Random rnd = new Random(SEED);
    int verifiedGarbles = 0;
    for (byte[][] kv : raw.get(a).t()) {
      byte[] txid = Arrays.copyOfRange(kv[0], 1, 33);
      byte[] value = kv[1];
      TxLocation truth = idx.resolve(txid, value);
      for (int len = 0; len < value.length; len++) {
        byte[] cut = Arrays.copyOf(value, len);
        assertThrows(CorruptRecordException.class, () -> idx.resolve(txid, cut));
      }
      for (int g = 0; g < GARBLES_PER_VALUE; g++) {
        byte[] bad = garble(value, rnd);
        TxLocation loc;
        try {
          loc = idx.resolve(txid, bad);
        } catch (CorruptRecordException expected) {
          continue;
        }
        try {
          Transaction tx = idx.readTransaction(loc);
          // only possible if the garbled row still denotes the same transaction
          assertEquals(truth, loc, "seed " + SEED);
          assertArrayEquals(txid, tx.getTxId().getReversedBytes());
        } catch (IndexReadException expected) {
          assertTrue(expected.getCause() instanceof CorruptRecordException, expected.toString());
          verifiedGarbles++;
        }
      }
    }
    System.out.printf(
        "%s: %d 't' garbles decoded to a block but failed the txid check%n", a, verifiedGarbles);
  }

  // ------------------------------------------------------------------ 'f' and 'B'

  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "MAINNET_LEGACY", "REGTEST_B"})
  void blockFileValues(Archive a) throws CorruptRecordException {
    Random rnd = new Random(SEED);
    List<byte[][]> files = raw.get(a).f();
    assertEquals(indexes.get(a).blockFiles().size(), files.size());
    for (byte[][] kv : files) {
      assertEquals(
          indexes.get(a).blockFiles().get(BlockFileInfo.decode(kv[0], kv[1]).file()),
          BlockFileInfo.decode(kv[0], kv[1]));
      for (int len = 0; len < kv[1].length; len++) {
        byte[] cut = Arrays.copyOf(kv[1], len);
        assertThrows(CorruptRecordException.class, () -> BlockFileInfo.decode(kv[0], cut));
      }
      for (int g = 0; g < 1000; g++) {
        byte[] bad = garble(kv[1], rnd);
        try {
          BlockFileInfo.decode(kv[0], bad); // statistics only, not self-authenticating: may decode
        } catch (CorruptRecordException expected) {
          // fine
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"MAINNET_LDB", "REGTEST_B"})
  void locatorValues(Archive a) throws CorruptRecordException {
    byte[] key = {DbKeys.BEST_BLOCK};
    byte[] value = raw.get(a).locator();
    NodeIndex idx = indexes.get(a);
    BlockLocator truth = BlockLocator.decode(key, value);
    assertArrayEquals(idx.txindexTipHash().orElseThrow(), truth.tip().orElseThrow());
    for (int len = 0; len < value.length; len++) {
      byte[] cut = Arrays.copyOf(value, len);
      assertThrows(CorruptRecordException.class, () -> BlockLocator.decode(key, cut));
    }
    Random rnd = new Random(SEED);
    for (int g = 0; g < 2000; g++) {
      byte[] bad = garble(value, rnd);
      BlockLocator l;
      try {
        l = BlockLocator.decode(key, bad);
      } catch (CorruptRecordException expected) {
        continue;
      }
      // a garbled hash can only name no block at all (it is not authenticated, but 2^-256
      // collisions)
      for (int i = 0; i < l.hashes().size(); i++) {
        if (!Arrays.equals(l.hashes().get(i), truth.hashes().get(i))) {
          assertTrue(idx.findBlock(l.hashes().get(i)).isEmpty(), "seed " + SEED);
        }
      }
    }
  }

  // ------------------------------------------------------------------ random bytes

  @ParameterizedTest
  @EnumSource(
      value = Archive.class,
      names = {"REGTEST_B"})
  void randomBytesOnlyEverRaiseTheDocumentedException(Archive a) {
    Random rnd = new Random(SEED);
    byte[] bKey = raw.get(a).b().get(0)[0];
    byte[] fKey = raw.get(a).f().get(0)[0];
    for (int i = 0; i < 20_000; i++) {
      byte[] v = new byte[rnd.nextInt(120)];
      rnd.nextBytes(v);
      expectCorruptOrValue(() -> DiskBlockIndex.decode(bKey, v));
      expectCorruptOrValue(() -> DiskTxPos.decode(DbKeys.txKey(new byte[32]), v));
      expectCorruptOrValue(() -> BlockFileInfo.decode(fKey, v));
      expectCorruptOrValue(() -> BlockLocator.decode(new byte[] {DbKeys.BEST_BLOCK}, v));
    }
  }

  private interface Decode {
    Object run() throws CorruptRecordException;
  }

  private static void expectCorruptOrValue(Decode d) {
    try {
      d.run();
    } catch (CorruptRecordException expected) {
      // documented
    } catch (RuntimeException | Error e) {
      fail("only CorruptRecordException may escape a decoder; seed " + SEED, e);
    }
  }

  /** Flips 1-3 random bytes to other values (never a no-op). */
  static byte[] garble(byte[] value, Random rnd) {
    byte[] bad = value.clone();
    int n = 1 + rnd.nextInt(3);
    for (int i = 0; i < n; i++) {
      int p = rnd.nextInt(bad.length);
      bad[p] ^= (byte) (1 + rnd.nextInt(255));
    }
    if (Arrays.equals(bad, value)) {
      bad[0] ^= 1;
    }
    return bad;
  }
}
