package io.bbfindex.benchmarks.synthetic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.Manifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale benchmark's store on a tiny input: a real store ({@link FilterStore#open} validates
 * every file against the manifest) that answers every inserted txid from the summary and from its
 * own block file's filter, and whose summary a store of the same txids over fewer files can share.
 */
class SyntheticStoreTest {

  private static final long SEED = 0x5CA1E_7E57L;
  private static final long KEYS = 56_000;
  private static final int FILES = 56;

  @TempDir Path tmp;

  /** The store of {@link #KEYS} txids over {@link #FILES} files, summary included. */
  private SyntheticStore.Built fiftySixFiles(BuildOptions opts) throws IOException {
    return SyntheticStore.build(
        tmp.resolve("s56"),
        new SyntheticStore.Spec(KEYS, FILES, 40, SEED, opts),
        null,
        ProgressListener.NONE);
  }

  @Test
  void aFiftySixFileStoreAnswersEveryInsertedTxid() throws IOException {
    BuildOptions opts = BuildOptions.defaults();
    SyntheticStore.Built built = fiftySixFiles(opts);
    Manifest m = built.manifest();
    assertEquals(FILES, m.files().size());
    assertEquals(KEYS, m.txKeys(), "per-file key counts add up to every txid");
    assertEquals(KEYS, m.summary().keys());
    assertTrue(built.totalBytes() > built.fileFilterBytes() + built.summaryBytes());

    SyntheticKeys txids = new SyntheticKeys(SEED);
    byte[] k = new byte[32];
    try (FilterStore store = FilterStore.open(built.dir())) {
      for (int f = 0; f < FILES; f++) {
        long lo = SyntheticKeys.rangeStart(KEYS, FILES, f);
        long hi = SyntheticKeys.rangeStart(KEYS, FILES, f + 1);
        assertEquals(hi - lo, m.file(f).orElseThrow().keys(), "file " + f);
        var fileFilter = store.fileFilter(f).orElseThrow();
        for (long i = lo; i < hi; i++) {
          txids.key(i, k, 0);
          if (!store.mightContainTx(k, 0) || !fileFilter.mightContain(k, 0)) {
            throw new AssertionError("txid " + i + " of file " + f + " missed (seed " + SEED + ")");
          }
        }
      }
      // absent txids: mostly "no" (sized for 1 % at 1.04x the keys; 5 % leaves room for chance)
      byte[] neg = new SyntheticKeys(SEED + 1).keys(0, 20_000);
      int maybe = 0;
      for (int i = 0; i < 20_000; i++) {
        maybe += store.mightContainTx(neg, 32 * i) ? 1 : 0;
      }
      assertTrue(
          maybe < 1_000, "summary FPR way above 1 %: " + maybe + " of 20,000 (seed " + SEED + ")");
    }
  }

  @Test
  void theSameTxidsOverFewerFilesShareTheSummary() throws IOException {
    BuildOptions opts = BuildOptions.defaults();
    SyntheticStore.Built many = fiftySixFiles(opts);
    SyntheticStore.Built one =
        SyntheticStore.build(
            tmp.resolve("s1"),
            new SyntheticStore.Spec(KEYS, 1, 40, SEED, opts),
            many.dir(),
            ProgressListener.NONE);
    assertArrayEquals(
        Files.readAllBytes(many.dir().resolve(many.manifest().summary().name())),
        Files.readAllBytes(one.dir().resolve(one.manifest().summary().name())));
    try (FilterStore store = FilterStore.open(one.dir())) {
      assertEquals(1, store.manifest().files().size());
      byte[] k = new byte[32];
      new SyntheticKeys(SEED).key(KEYS - 1, k, 0);
      assertTrue(store.mightContainTx(k, 0));
      assertEquals(java.util.List.of(0), store.candidateFiles(k, 0));
    }
  }

  @Test
  void storesOfSeveralSplitsBuiltInOnePassEachAnswerFromTheirOwnFiles() throws Exception {
    BuildOptions opts = BuildOptions.defaults();
    SyntheticStore.Built many = fiftySixFiles(opts);
    int[] splits = {1, 7, 13};
    java.util.List<SyntheticStore.Built> built =
        SyntheticStore.build(
            Arrays.stream(splits).mapToObj(f -> tmp.resolve("split-" + f)).toList(),
            Arrays.stream(splits)
                .mapToObj(f -> new SyntheticStore.Spec(KEYS, f, 40, SEED, opts))
                .toList(),
            java.util.concurrent.CompletableFuture.completedFuture(many.dir()),
            ProgressListener.NONE);
    SyntheticKeys txids = new SyntheticKeys(SEED);
    byte[] k = new byte[32];
    for (int s = 0; s < splits.length; s++) {
      int files = splits[s];
      assertEquals(
          many.manifest().summary(), built.get(s).manifest().summary(), "the summary is shared");
      try (FilterStore store = FilterStore.open(built.get(s).dir())) {
        assertEquals(files, store.manifest().files().size());
        assertEquals(KEYS, store.manifest().txKeys());
        for (int f = 0; f < files; f++) {
          long lo = SyntheticKeys.rangeStart(KEYS, files, f);
          long hi = SyntheticKeys.rangeStart(KEYS, files, f + 1);
          assertEquals(hi - lo, store.manifest().file(f).orElseThrow().keys());
          var fileFilter = store.fileFilter(f).orElseThrow();
          for (long i = lo; i < hi; i++) {
            txids.key(i, k, 0);
            assertTrue(fileFilter.mightContain(k, 0), files + " files: txid " + i + " of " + f);
          }
        }
      }
    }
  }

  @Test
  void keysAreReproducibleAndRangesPartitionTheIndexes() {
    SyntheticKeys a = new SyntheticKeys(7);
    byte[] x = new byte[64];
    a.key(123, x, 0);
    a.key(123, x, 32);
    assertArrayEquals(Arrays.copyOfRange(x, 0, 32), Arrays.copyOfRange(x, 32, 64));
    byte[] y = new byte[32];
    new SyntheticKeys(8).key(123, y, 0);
    assertFalse(Arrays.equals(Arrays.copyOfRange(x, 0, 32), y), "another seed, another key");
    a.key(124, y, 0);
    assertFalse(Arrays.equals(Arrays.copyOfRange(x, 0, 32), y), "another index, another key");
    long n = 1_400_000_000L;
    assertEquals(0, SyntheticKeys.rangeStart(n, 5_600, 0));
    assertEquals(n, SyntheticKeys.rangeStart(n, 5_600, 5_600));
    assertEquals(250_000, SyntheticKeys.rangeStart(n, 5_600, 1));
  }
}
