package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.testing.SyntheticTxIndex;
import io.bbfindex.ingest.testing.TxIndexOnly;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The range-split scan gives exactly the sequential scan's filters and counts, over an obfuscated
 * synthetic txindex in Core's format, and a failure on any thread ends the scan with that failure.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ParallelTxScanTest {

  private static final long SEED = 0x9A2A_11E1L;
  private static final int ROWS = 50_000;

  @TempDir static Path tmp;

  private TxIndexOnly index;
  private long[] perFile;

  @BeforeAll
  void generate() throws IOException {
    SyntheticTxIndex.Result r =
        SyntheticTxIndex.generate(
            tmp.resolve("gen"),
            new SyntheticTxIndex.Params(
                ROWS, 40, 2L << 20, SEED, new byte[] {9, 8, 7, 6, 5, 4, 3, 2}),
            null);
    perFile = r.perFile();
    index = TxIndexOnly.open(r.txindexDir(), tmp.resolve("work"));
  }

  @AfterAll
  void close() throws IOException {
    index.close();
  }

  private record Built(BlockedBloomFilter[] byFile, BlockedBloomFilter summary, TxFilterPass pass) {
    void close() {
      summary.close();
      for (BlockedBloomFilter f : byFile) {
        f.close();
      }
    }
  }

  private Built scan(int decoders) {
    BlockedBloomFilter[] byFile = new BlockedBloomFilter[perFile.length];
    for (int f = 0; f < perFile.length; f++) {
      byFile[f] = BlockedBloomFilter.create(BbfSizing.forTarget(perFile[f], 0.01), 0);
    }
    BlockedBloomFilter summary = BlockedBloomFilter.create(BbfSizing.forTarget(ROWS, 0.01), 0);
    TxFilterPass pass =
        new TxFilterPass(byFile, summary, null, ProgressListener.NONE, "test", ROWS);
    ParallelTxScan.run(index::forEachTx, decoders, pass);
    return new Built(byFile, summary, pass);
  }

  @ParameterizedTest(name = "decoders={0}")
  @ValueSource(ints = {1, 3, 8})
  void rangeSplitScansBuildTheSequentialFiltersBitForBit(int decoders) {
    Built seq = scan(0);
    Built par = scan(decoders);
    try {
      assertEquals(ROWS, seq.pass().records());
      assertEquals(ROWS, par.pass().records());
      for (int f = 0; f < perFile.length; f++) {
        assertEquals(perFile[f], par.pass().count(f), "rows of blk" + f);
        assertEquals(
            -1, seq.byFile()[f].bits().mismatch(par.byFile()[f].bits()), "blk" + f + " bits");
      }
      assertEquals(-1, seq.summary().bits().mismatch(par.summary().bits()), "summary bits");
    } finally {
      seq.close();
      par.close();
    }
  }

  @Test
  void aFailingInserterEndsTheScanWithItsException() {
    IllegalStateException boom = new IllegalStateException("boom");
    AtomicLong seen = new AtomicLong();
    // a pass whose progress callback throws after 64 Ki rows: runs on the inserter thread
    TxFilterPass pass =
        new TxFilterPass(
            new BlockedBloomFilter[0],
            null,
            null,
            (phase, done, total) -> {
              seen.set(done);
              throw boom;
            },
            "x",
            -1);
    IllegalStateException e =
        assertTimeoutPreemptively(
            Duration.ofSeconds(60),
            () ->
                assertThrows(
                    IllegalStateException.class,
                    () ->
                        ParallelTxScan.run(
                            (from, to, c) -> {
                              byte[] txid = new byte[32];
                              for (int i = 0; i < 40_000; i++) {
                                txid[0] = (byte) from;
                                c.accept(txid, 0, 8, 1);
                              }
                            },
                            3,
                            pass)));
    assertSame(boom, e);
    assertEquals(1 << 16, seen.get());
  }

  @Test
  void aFailingDecoderEndsTheScanWithItsException() {
    TxFilterPass pass =
        new TxFilterPass(new BlockedBloomFilter[1], null, null, ProgressListener.NONE, "x", -1);
    IndexReadException corrupt = new IndexReadException("corrupt row", new IOException("x"));
    IndexReadException e =
        assertTimeoutPreemptively(
            Duration.ofSeconds(60),
            () ->
                assertThrows(
                    IndexReadException.class,
                    () ->
                        ParallelTxScan.run(
                            (from, to, c) -> {
                              if (from >= 128) {
                                throw corrupt;
                              }
                              index.forEachTx(from, to, c);
                            },
                            2,
                            pass)));
    assertSame(corrupt, e);
  }

  @Test
  void txidRangesAreChecked() {
    AtomicLong n = new AtomicLong();
    index.forEachTx(7, 7, (t, f, p, o) -> n.incrementAndGet());
    assertEquals(0, n.get(), "an empty range visits nothing");
    index.forEachTx(
        0,
        1,
        (t, f, p, o) -> {
          n.incrementAndGet();
          assertEquals(0, t[0]);
        });
    index.forEachTx(255, 256, (t, f, p, o) -> assertEquals((byte) 255, t[0]));
    long firstByteZero = n.get();
    assertEquals(
        ROWS / 256.0, firstByteZero, 6 * Math.sqrt(ROWS / 256.0), "uniform txids, seed " + SEED);
    assertThrows(IllegalArgumentException.class, () -> index.forEachTx(5, 4, (t, f, p, o) -> {}));
    assertThrows(IllegalArgumentException.class, () -> index.forEachTx(0, 257, (t, f, p, o) -> {}));
  }
}
