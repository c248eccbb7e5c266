package io.bbfindex.ingest.leveldb;

import static org.fusesource.leveldbjni.JniDBFactory.factory;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A LevelDB whose writer was caught mid-append: its log is cut at every byte of its last record.
 * Every such cut must snapshot and open (LevelDB with paranoid checks refuses a torn record, so the
 * snapshot cuts it) with exactly the writes before that record, and never crash the JVM.
 */
class TornLogSnapshotTest {
  private static final int WRITES = 20;

  @TempDir Path tmp;

  @Test
  void aLogCutAtEveryByteOfItsLastRecordOpensWithTheIntactPrefix() throws IOException {
    TornLog t = TornLog.written(tmp.resolve("db"), new byte[64]);
    int end = t.whole().length;
    for (int cut = t.lastStart(); cut <= end; cut++) {
      assertOpensWithPrefix(t, cut, cut == end ? WRITES : WRITES - 1, 64);
    }
  }

  /**
   * A last record larger than a 32 KiB log block is written as FIRST and LAST fragments: a cut
   * anywhere in it, the block boundary included, drops the whole record.
   */
  @Test
  void aFragmentedLastRecordCutAnywhereIsDroppedWhole() throws IOException {
    TornLog t = TornLog.written(tmp.resolve("db"), new byte[40_000]);
    byte[] whole = t.whole();
    int lastStart = t.lastStart();
    assertTrue(whole.length - lastStart > LevelDbLog.BLOCK, "the last record spans a block");
    for (int cut = lastStart; cut < whole.length; cut++) {
      assertEquals(lastStart, LevelDbLog.read(Arrays.copyOf(whole, cut)).intactLength(), "" + cut);
    }
    int boundary = (lastStart / LevelDbLog.BLOCK + 1) * LevelDbLog.BLOCK;
    for (int cut :
        new int[] {
          lastStart + 1, boundary - 1, boundary, boundary + 3, boundary + 7, whole.length - 1
        }) {
      assertOpensWithPrefix(t, cut, WRITES - 1, 40_000);
    }
    assertOpensWithPrefix(t, whole.length, WRITES, 40_000);
  }

  /**
   * A LevelDB in {@code source} whose only log holds {@code WRITES} writes ({@code whole}), the
   * last record starting at {@code lastStart}.
   */
  private record TornLog(Path source, Path log, byte[] whole, int lastStart) {

    /** Writes {@code WRITES} keys, the last with {@code lastValue}; closed, the log keeps them. */
    static TornLog written(Path dir, byte[] lastValue) throws IOException {
      try (DB db = factory.open(dir.toFile(), new Options().createIfMissing(true))) {
        for (int i = 0; i < WRITES; i++) {
          db.put(key(i), i == WRITES - 1 ? lastValue : value(i));
        }
      }
      Path log = onlyLog(dir);
      byte[] whole = Files.readAllBytes(log);
      return new TornLog(dir, log, whole, lastRecordStart(whole));
    }
  }

  /** Cuts the source's log after {@code cut} bytes, snapshots and opens it, checks its writes. */
  private void assertOpensWithPrefix(TornLog t, int cut, int expected, int lastLength)
      throws IOException {
    Files.write(t.log(), Arrays.copyOf(t.whole(), cut));
    Path snap = tmp.resolve("snap-" + cut);
    try (LevelDbSnapshot db = LevelDbSnapshot.open(t.source(), snap)) {
      for (int i = 0; i < WRITES - 1; i++) {
        assertArrayEquals(value(i), db.get(key(i)), "cut at " + cut + ", key " + i);
      }
      if (expected == WRITES) {
        assertEquals(lastLength, db.get(key(WRITES - 1)).length, "the whole log: every write");
      } else {
        assertNull(db.get(key(WRITES - 1)), "cut at " + cut + ": the torn record is dropped");
      }
    }
  }

  /** Where the last record of an intact log starts: the intact prefix once its last byte is cut. */
  private static int lastRecordStart(byte[] whole) {
    int start = LevelDbLog.read(Arrays.copyOf(whole, whole.length - 1)).intactLength();
    assertTrue(start > 0 && start < whole.length, "a record before the last: " + start);
    return start;
  }

  private static Path onlyLog(Path db) throws IOException {
    try (Stream<Path> s = Files.list(db)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
    }
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] value(int i) {
    return ("value of " + i).getBytes(StandardCharsets.US_ASCII);
  }
}
