package io.bbfindex.ingest.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.records.BlockLocator;
import io.bbfindex.ingest.records.DiskTxPos;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The generator's txindex read back by the project's own reader ({@link TxIndexOnly}, which shares
 * the 't' scan, {@link DiskTxPos} and {@link BlockLocator} decoders with NodeIndex): every row
 * exactly as written, the locator's tip, Core's {@code .ldb} table names, realistic positions.
 */
class SyntheticTxIndexTest {

  private static final long SEED = 0x6E4_0001L;
  private static final int RECORDS = 30_000;

  @TempDir Path tmp;

  @ParameterizedTest(name = "obfuscated={0}")
  @ValueSource(booleans = {false, true})
  void everyRowWrittenIsReadBackExactlyByTheReader(boolean obfuscated) throws IOException {
    byte[] key = obfuscated ? new byte[] {1, 2, 3, 4, (byte) 0xF0, 0x55, 0x7F, (byte) 0x80} : null;
    Map<ByteBuffer, long[]> written = new HashMap<>();
    Path datadir = tmp.resolve("gen");
    // ~30 tx per block, 128 MiB files: tiny blocks would make a single file, so use many txs
    SyntheticTxIndex.Result r =
        SyntheticTxIndex.generate(
            datadir,
            new SyntheticTxIndex.Params(RECORDS, 30, 2L << 20, SEED, key),
            (txid, file, pos, off) ->
                written.put(ByteBuffer.wrap(txid.clone()), new long[] {file, pos, off}));
    assertEquals(RECORDS, written.size(), "seeded txids must be distinct (seed " + SEED + ")");
    assertEquals(RECORDS, java.util.Arrays.stream(r.perFile()).sum());

    try (Stream<Path> s = Files.list(r.txindexDir())) {
      List<String> names = s.map(p -> p.getFileName().toString()).toList();
      assertTrue(
          names.stream().anyMatch(n -> n.endsWith(".ldb"))
              || names.stream().anyMatch(n -> n.endsWith(".log")),
          "tables named as Core names them: " + names);
      assertFalse(
          names.stream().anyMatch(n -> n.endsWith(".sst")),
          "no leveldbjni .sst names left: " + names);
    }

    Map<String, String> before = Fixtures.hashTree(r.txindexDir());
    long[] seen = new long[1];
    long[] perFile = new long[r.perFile().length];
    try (TxIndexOnly idx = TxIndexOnly.open(r.txindexDir(), tmp.resolve("work"))) {
      idx.forEachTx(
          (txid, file, pos, off) -> {
            long[] w = written.get(ByteBuffer.wrap(txid));
            if (w == null || w[0] != file || w[1] != pos || w[2] != off) {
              throw new AssertionError(
                  "row read back differs from the one written (seed " + SEED + ")");
            }
            assertTrue(pos >= 8 && pos < (2L << 20), "nPos inside a 2 MiB blk file: " + pos);
            assertTrue(off >= 1, "nTxOffset counts the tx-count CompactSize: " + off);
            perFile[file]++;
            seen[0]++;
          });
      ByteBuffer any = written.keySet().iterator().next();
      byte[] txid = new byte[32];
      any.duplicate().get(txid);
      DiskTxPos p = idx.find(txid).orElseThrow();
      assertArrayEquals(written.get(any), new long[] {p.file(), p.dataPos(), p.txOffset()});
      BlockLocator loc = idx.locator().orElseThrow();
      assertArrayEquals(r.tip(), loc.tip().orElseThrow());
      assertEquals(20, loc.hashes().size());
    }
    assertEquals(RECORDS, seen[0]);
    assertArrayEquals(r.perFile(), perFile);
    assertArrayEquals(r.perFile(), SyntheticTxIndex.readPerFile(datadir));
    assertTrue(
        r.perFile().length >= 5,
        "30k txs of ~650 bytes fill about 9 files of 2 MiB: " + r.perFile().length + " file(s)");
    assertEquals(
        before, Fixtures.hashTree(r.txindexDir()), "reading must not change the generated index");
  }

  @ParameterizedTest(name = "records={0}")
  @ValueSource(longs = {0, -5})
  void refusesNonsense(long records) {
    assertThrows(
        IllegalArgumentException.class, () -> SyntheticTxIndex.Params.mainnetLike(records, SEED));
  }
}
