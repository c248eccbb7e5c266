package io.bbfindex.ingest.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FilterStore#openMappedFirst}: a real store (the multi-file regtest fixture, per-file
 * filters on) answers from its verified mappings while its copies are held back (a test executor),
 * exactly as the store opened from copies does; a file changed under the mappings (rewritten in
 * place, truncated) gives no answer ({@link FilterStoreChangedException}) rather than a wrong one,
 * and the copy of a changed file is refused; a file renamed over the path changes nothing; the
 * copies come in once the task runs, and closing at any point frees everything.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MappedFirstStoreTest {
  private static final String SUMMARY = "tx-summary.bbf";

  /** Present txids probed one by one (each refusal costs a stat and an exception). */
  private static final int SAMPLE = 3_000;

  @TempDir static Path tmp;
  private Path built;
  private byte[] present;
  private byte[] mixed;
  private int mixedCount;

  /** Holds the copy task until {@link #run} is called. */
  private static final class HeldExecutor implements Executor {
    private final List<Runnable> held = new ArrayList<>();

    @Override
    public synchronized void execute(Runnable task) {
      held.add(task);
    }

    synchronized void run() {
      held.forEach(Runnable::run);
      held.clear();
    }
  }

  @BeforeAll
  void buildStore() throws IOException {
    Path datadir = Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("data"));
    built = tmp.resolve("built");
    try (NodeIndex idx = NodeIndex.open(datadir, tmp.resolve("work"))) {
      FilterBuilder.build(
          idx, built, BuildOptions.defaults().withFileFilters(true), ProgressListener.NONE);
    }
    List<TxRow> rows = Fixtures.txRows(Archive.REGTEST_MULTIFILE);
    ByteBuffer p = ByteBuffer.allocate(rows.size() * 32);
    rows.forEach(r -> p.put(r.txidInternal()));
    present = p.array();
    byte[] absent = new byte[20_000 * 32];
    new Random(77).nextBytes(absent);
    ByteBuffer m = ByteBuffer.allocate(present.length + absent.length).put(present).put(absent);
    mixed = m.array();
    mixedCount = mixed.length / 32;
  }

  /** A fresh copy of the built store (the tests change its files). */
  private Path store(String name) throws IOException {
    Path dir = tmp.resolve(name);
    Files.createDirectories(dir);
    try (Stream<Path> files = Files.list(built)) {
      for (Path f : files.toList()) {
        Files.copy(f, dir.resolve(f.getFileName()));
      }
    }
    return dir;
  }

  private long[] batch(FilterStore s) {
    long[] bits = new long[(mixedCount + 63) / 64];
    s.mightContainTxBatch(mixed, mixedCount, bits);
    return bits;
  }

  private List<List<Integer>> candidates(FilterStore s) {
    List<List<Integer>> out = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      out.add(s.candidateFiles(mixed, i * 32));
    }
    return out;
  }

  @Test
  void theMappingsAnswerAsTheCopiesDoUntilTheCopiesComeIn() throws Exception {
    Path dir = store("same-answers");
    HeldExecutor copies = new HeldExecutor();
    try (FilterStore reference = FilterStore.open(dir);
        FilterStore mapped = FilterStore.openMappedFirst(dir, copies)) {
      assertFalse(mapped.awaitCopies(Duration.ZERO), "the copies are held back");
      assertArrayEquals(batch(reference), batch(mapped));
      for (int i = 0; i < Math.min(SAMPLE, present.length / 32); i++) {
        assertTrue(mapped.mightContainTx(present, i * 32), "present txid " + i);
      }
      assertEquals(candidates(reference), candidates(mapped));
      assertEquals(reference.filterCount(), mapped.filterCount());
      assertEquals(reference.lookupFilters(), mapped.lookupFilters());

      copies.run();
      assertTrue(mapped.awaitCopies(Duration.ofSeconds(30)));
      assertArrayEquals(batch(reference), batch(mapped));
      assertEquals(candidates(reference), candidates(mapped));
      assertTrue(mapped.changedOnDisk().isEmpty());
    }
  }

  @Test
  void copiesAfterAGateStartOnlyOnceItCompletesAndNeverWhenItFails() throws Exception {
    Path dir = store("gated");
    CompletableFuture<Void> ready = new CompletableFuture<>();
    CompletableFuture<Void> failed = new CompletableFuture<>();
    try (FilterStore reference = FilterStore.open(dir);
        FilterStore gated = FilterStore.openMappedFirst(dir, FilterStore.copiesAfter(ready));
        FilterStore neverCopied =
            FilterStore.openMappedFirst(dir, FilterStore.copiesAfter(failed))) {
      assertFalse(gated.awaitCopies(Duration.ofMillis(300)), "no copy before the gate opens");
      assertArrayEquals(batch(reference), batch(gated)); // the mappings answer meanwhile
      ready.complete(null);
      assertTrue(gated.awaitCopies(Duration.ofSeconds(30)), "the copies come in after it");
      assertArrayEquals(batch(reference), batch(gated));
      failed.completeExceptionally(new IOException("the start failed"));
      assertFalse(neverCopied.awaitCopies(Duration.ofMillis(300)));
      assertArrayEquals(batch(reference), batch(neverCopied));
    }
  }

  @Test
  void aSummaryRewrittenInPlaceUnderTheMappingsGivesNoAnswerRatherThanAWrongOne() throws Exception {
    Path dir = store("rewritten");
    HeldExecutor copies = new HeldExecutor();
    try (FilterStore mapped = FilterStore.openMappedFirst(dir, copies)) {
      // same size and inode, every data bit cleared: every probe of the mapping says "no"
      try (FileChannel ch = FileChannel.open(dir.resolve(SUMMARY), StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.allocate((int) ch.size() - 128), 128);
      }
      assertNoWrongNo(mapped);
      assertThrows(FilterStoreChangedException.class, () -> batch(mapped));
      assertTrue(mapped.changedOnDisk().orElseThrow().contains(SUMMARY));

      copies.run(); // the copy of the changed file fails its checksum
      assertFalse(mapped.awaitCopies(Duration.ofSeconds(30)));
      String why = mapped.changedOnDisk().orElseThrow();
      assertTrue(why.contains("copy could not be made") && why.contains("checksum"), why);
      assertNoWrongNo(mapped);
    }
  }

  @Test
  void aSummaryTruncatedUnderTheMappingsGivesNoAnswerAndDoesNotCrash() throws Exception {
    Path dir = store("truncated");
    HeldExecutor copies = new HeldExecutor();
    try (FilterStore mapped = FilterStore.openMappedFirst(dir, copies)) {
      for (int round = 0; round < 50; round++) { // compiled by C2 before the fault
        batch(mapped);
      }
      try (RandomAccessFile raf = new RandomAccessFile(dir.resolve(SUMMARY).toFile(), "rw")) {
        raf.setLength(raf.length() / 2 + 123);
      }
      assertNoWrongNo(mapped);
      copies.run();
      assertFalse(mapped.awaitCopies(Duration.ofSeconds(30)));
      assertTrue(mapped.changedOnDisk().isPresent());
    }
  }

  /**
   * Each of the first {@link #SAMPLE} present txids is "maybe" or refused, never "no"; at least one
   * is refused.
   */
  private void assertNoWrongNo(FilterStore s) {
    int refused = 0;
    for (int i = 0; i < Math.min(SAMPLE, present.length / 32); i++) {
      try {
        assertTrue(s.mightContainTx(present, i * 32), "a present txid answered 'no'");
      } catch (FilterStoreChangedException e) {
        assertTrue(e.getMessage().contains(SUMMARY), e.getMessage());
        refused++;
      }
    }
    assertTrue(refused > 0, "the change was noticed");
  }

  @Test
  void aFileRenamedOverTheSummaryChangesNoAnswerAndTheVerifiedFileIsCopied() throws Exception {
    Path dir = store("renamed-over");
    HeldExecutor copies = new HeldExecutor();
    try (FilterStore reference = FilterStore.open(built);
        FilterStore mapped = FilterStore.openMappedFirst(dir, copies)) {
      Path noise = dir.resolve("noise");
      byte[] junk = new byte[(int) Files.size(dir.resolve(SUMMARY))];
      new Random(5).nextBytes(junk);
      Files.write(noise, junk);
      Files.move(
          noise,
          dir.resolve(SUMMARY),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
      assertArrayEquals(batch(reference), batch(mapped));
      copies.run();
      assertTrue(mapped.awaitCopies(Duration.ofSeconds(30)));
      assertArrayEquals(batch(reference), batch(mapped));
    }
  }

  @Test
  void closingBeforeOrWhileTheCopiesAreMadeFreesEverything() throws Exception {
    Path dir = store("closed");
    HeldExecutor copies = new HeldExecutor();
    FilterStore held = FilterStore.openMappedFirst(dir, copies);
    held.close();
    copies.run(); // a task that starts after the close does nothing
    assertThrows(IllegalStateException.class, () -> held.mightContainTx(present, 0));
    assertFalse(held.awaitCopies(Duration.ofSeconds(1)));

    for (int i = 0; i < 20; i++) { // closed at random points of a real copy thread's work
      FilterStore racing = FilterStore.openMappedFirst(dir);
      Thread.sleep(i % 4);
      racing.close();
      assertThrows(IllegalStateException.class, () -> racing.mightContainTx(present, 0));
    }
  }

  @Test
  void reopenCarriesTheMappedStoreOverAndItsCopiesStillComeIn() throws Exception {
    Path dir = store("reopened");
    HeldExecutor copies = new HeldExecutor();
    FilterStore first = FilterStore.openMappedFirst(dir, copies);
    try (FilterStore second = first.reopen()) {
      assertFalse(second.awaitCopies(Duration.ZERO));
      copies.run();
      assertTrue(second.awaitCopies(Duration.ofSeconds(30)));
      assertTrue(second.mightContainTx(present, 0));
    }
  }
}
