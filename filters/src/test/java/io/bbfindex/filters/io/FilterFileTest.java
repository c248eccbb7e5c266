package io.bbfindex.filters.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.TestKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilterFileTest {

  @TempDir Path dir;

  private FilterFileException rejected(Path file, byte[] bytes) throws IOException {
    Files.write(file, bytes);
    FilterFileException e =
        assertThrows(FilterFileException.class, () -> FilterFile.load(file).close());
    assertTrue(e.getMessage().startsWith(file.toString() + ": "), e.getMessage());
    assertEquals(file, e.file());
    // the in-memory copy refuses exactly what the mapping refuses, with the same reason
    FilterFileException copied =
        assertThrows(FilterFileException.class, () -> FilterFile.read(file).close());
    assertEquals(e.getMessage(), copied.getMessage());
    return e;
  }

  /**
   * {@link FilterFile#read} holds the verified bits themselves: the same bits, answers and set-bit
   * count as the mapping, cache-line aligned, and unchanged by whatever happens to the file
   * afterwards (truncated at a page boundary or not, rewritten in place), where a mapping would
   * read zeros, fault or answer from other bits. Large enough for several read chunks and the
   * huge-page allocation.
   */
  @Test
  void readCopiesTheVerifiedBitsAndLaterChangesToTheFileDoNotReachThem() throws IOException {
    byte[] members = TestKeys.random(41, 200_000);
    byte[] probes = TestKeys.concat(TestKeys.random(42, 50_000), members);
    int probeCount = TestKeys.count(probes);
    BbfGeometry g = new BbfGeometry(150_001, 8, 64); // 9.6 MB: three 4 MiB chunks
    Path file = dir.resolve("copied.bbf");
    try (BlockedBloomFilter original = FilterFiles.filter(g, 0x5EED, members)) {
      FilterFile.write(file, original, FilterFiles.META);
      boolean[] expected = new boolean[probeCount];
      original.mightContainBatch(probes, probeCount, expected);
      try (LoadedFilter copy = FilterFile.read(file);
          LoadedFilter mapped = FilterFile.load(file)) {
        BlockedBloomFilter f = copy.filter();
        assertEquals(0, f.bits().address() % 64, "the copy must be cache-line aligned");
        assertEquals(-1, f.bits().mismatch(original.bits()));
        assertEquals(original.bitCount(), copy.bitCount());
        assertEquals(LoadedFilter.NOT_COUNTED, mapped.bitCount());
        assertEquals(mapped.headerCrc(), copy.headerCrc());
        assertEquals(mapped.metadata(), copy.metadata());
        assertTrue(f.isReadOnly());
        List<Consumer<FileChannel>> changes =
            List.of(
                ch -> truncate(ch, FilterFile.DATA_OFFSET + 3 * 4096),
                ch -> truncate(ch, FilterFile.DATA_OFFSET + 4096 + 123),
                ch -> {
                  try {
                    ch.write(ByteBuffer.wrap(TestKeys.random(43, 1000)), 4096);
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
        for (int c = 0; c < changes.size(); c++) {
          FilterFile.write(file, original, FilterFiles.META);
          try (LoadedFilter again = FilterFile.read(file);
              FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            changes.get(c).accept(ch);
            for (BlockedBloomFilter probe :
                List.of(
                    again.filter(),
                    again.filter().withKernel(BlockedBloomFilter.Kernel.SCALAR),
                    f)) {
              boolean[] batch = new boolean[probeCount];
              probe.mightContainBatch(probes, probeCount, batch);
              for (int i = 0; i < probeCount; i++) {
                if (batch[i] != expected[i] || probe.mightContain(probes, i * 32) != expected[i]) {
                  fail("change " + c + ", probe " + i + ": the copy answers differently");
                }
              }
            }
          }
        }
      }
    }
  }

  private static void truncate(FileChannel ch, long size) {
    try {
      ch.truncate(size);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void assertRejected(byte[] bytes, String expectedProblemPart) throws IOException {
    FilterFileException e = rejected(dir.resolve("bad.bbf"), bytes);
    assertTrue(
        e.problem().contains(expectedProblemPart),
        "expected '" + expectedProblemPart + "' in: " + e.getMessage());
  }

  @Test
  void roundTripKeepsBitsAnswersAndMetadata() throws IOException {
    byte[] members = TestKeys.random(1, 5000);
    byte[] probes = TestKeys.concat(TestKeys.random(2, 5000), members, TestKeys.adversarial(3));
    int probeCount = TestKeys.count(probes);
    for (int[] s : TestKeys.shapes()) {
      for (long salt : new long[] {0, 0xDEADBEEFL}) {
        BbfGeometry g = new BbfGeometry(128, s[0], s[1]);
        Path file = dir.resolve("f-" + s[0] + "-" + s[1] + "-" + salt + ".bbf");
        try (BlockedBloomFilter original = FilterFiles.filter(g, salt, members)) {
          FilterFile.write(file, original, FilterFiles.META);
          assertEquals(FilterFile.DATA_OFFSET + g.byteSize(), Files.size(file));
          try (LoadedFilter loaded = FilterFile.load(file)) {
            BlockedBloomFilter f = loaded.filter();
            assertEquals(g, f.geometry());
            assertEquals(salt, f.salt());
            assertEquals(original.derivationId(), f.derivationId());
            assertEquals(5000, f.count());
            assertEquals(FilterFiles.META, loaded.metadata());
            assertArrayEquals(FilterFiles.TIP, loaded.metadata().sourceTip());
            assertEquals(2, loaded.formatVersion());
            assertEquals(file, loaded.path());
            assertTrue(f.isReadOnly());
            assertEquals(0, f.bits().address() % 64, "mapped data must be cache-line aligned");
            assertEquals(-1, f.bits().mismatch(original.bits()));
            assertEquals(original.fillRatio(), f.fillRatio());
            assertEquals(original.modelledFpr(), f.modelledFpr());
            boolean[] batch = new boolean[probeCount];
            f.mightContainBatch(probes, probeCount, batch);
            for (int i = 0; i < probeCount; i++) {
              boolean expected = original.mightContain(probes, i * 32);
              assertEquals(expected, f.mightContain(probes, i * 32));
              assertEquals(expected, batch[i]);
            }
            assertThrows(UnsupportedOperationException.class, () -> f.add(members, 0));
          }
        }
      }
    }
  }

  @Test
  void loadedFiltersCanBeUnitedIntoAWritableOne() throws IOException {
    BbfGeometry g = new BbfGeometry(64, 8, 64);
    byte[] a = TestKeys.random(4, 1000);
    byte[] b = TestKeys.random(5, 1000);
    FilterFiles.write(dir.resolve("a.bbf"), g, 9, a, FilterFiles.META);
    FilterFiles.write(dir.resolve("b.bbf"), g, 9, b, FilterFiles.META);
    try (LoadedFilter la = FilterFile.load(dir.resolve("a.bbf"));
        LoadedFilter lb = FilterFile.load(dir.resolve("b.bbf"));
        BlockedBloomFilter summary = BlockedBloomFilter.create(g, 9)) {
      summary.union(la.filter());
      summary.union(lb.filter());
      for (int i = 0; i < 1000; i++) {
        assertTrue(summary.mightContain(a, i * 32) && summary.mightContain(b, i * 32));
      }
    }
  }

  @Test
  void writeReplacesAtomicallyAndLeavesNoTemporaryFiles() throws IOException {
    Path file = dir.resolve("replace.bbf");
    BbfGeometry g = new BbfGeometry(8, 4, 32);
    FilterFiles.write(file, g, 0, TestKeys.random(6, 10), FilterFiles.META);
    byte[] second = FilterFiles.write(file, g, 0, TestKeys.random(7, 20), FilterFiles.META);
    try (LoadedFilter loaded = FilterFile.load(file)) {
      assertEquals(20, loaded.filter().count());
    }
    assertArrayEquals(second, Files.readAllBytes(file));
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(1, files.count(), "temporary files left behind");
    }
    try (BlockedBloomFilter f = BlockedBloomFilter.create(g, 0)) {
      Path missingDir = dir.resolve("no-such-dir").resolve("x.bbf");
      assertThrows(IOException.class, () -> FilterFile.write(missingDir, f, FilterFiles.META));
    }
  }

  /**
   * The header CRC a store records is the one in bytes 124..127 (FORMAT.md), computed here from the
   * spec, and the same whether read alone or at load; a file another write replaced has another
   * one.
   */
  @Test
  void headerCrcIsTheStoredChecksumOfBytes0To123() throws IOException {
    Path file = dir.resolve("crc.bbf");
    BbfGeometry g = new BbfGeometry(8, 4, 64);
    byte[] bytes = FilterFiles.write(file, g, 0, TestKeys.random(21, 30), FilterFiles.META);
    java.util.zip.CRC32C spec = new java.util.zip.CRC32C();
    spec.update(bytes, 0, 124);
    int expected = (int) spec.getValue();
    assertEquals(expected, FilterFile.headerCrc(file));
    try (LoadedFilter loaded = FilterFile.load(file)) {
      assertEquals(expected, loaded.headerCrc());
    }
    FilterFiles.write(file, g, 0, TestKeys.random(22, 31), FilterFiles.META);
    assertTrue(FilterFile.headerCrc(file) != expected, "another file, another header CRC");
    Path shortFile = dir.resolve("short.bbf");
    Files.write(shortFile, Arrays.copyOf(bytes, 100));
    FilterFileException e =
        assertThrows(FilterFileException.class, () -> FilterFile.headerCrc(shortFile));
    assertEquals(shortFile, e.file());
    assertThrows(FilterFileException.class, () -> FilterFile.headerCrc(dir.resolve("missing.bbf")));
  }

  /** The header stores each kind's code; codes and labels are on disk and on the wire already. */
  @Test
  void everyKindRoundTripsThroughTheHeaderAndKeepsItsCodeAndLabel() throws IOException {
    assertEquals(
        List.of("0 generic", "1 tx-file", "2 tx-summary", "3 block-hashes", "4 tx-range"),
        Arrays.stream(FilterKind.values()).map(k -> k.code() + " " + k.label()).toList());
    for (FilterKind k : FilterKind.values()) {
      assertEquals(k, FilterKind.fromCode(k.code()));
      assertEquals(k, FilterKind.fromLabel(k.label()));
      Path file = dir.resolve("kind-" + k.code() + ".bbf");
      FilterFiles.write(
          file, new BbfGeometry(2, 2, 32), 0, TestKeys.random(23, 2), FilterMetadata.of(k));
      try (LoadedFilter loaded = FilterFile.load(file)) {
        assertEquals(k, loaded.metadata().kind());
      }
    }
    assertThrows(IllegalArgumentException.class, () -> FilterKind.fromLabel("tx-files"));
  }

  /** Every single-bit flip of a small filter file is detected. */
  @Test
  void everySingleBitFlipIsRejected() throws IOException {
    for (BbfGeometry g : new BbfGeometry[] {new BbfGeometry(2, 2, 32), new BbfGeometry(2, 4, 64)}) {
      byte[] good =
          FilterFiles.write(dir.resolve("good.bbf"), g, 0, TestKeys.random(8, 3), FilterFiles.META);
      Path bad = dir.resolve("flipped.bbf");
      Files.write(bad, good);
      // Flip in place through one open channel: rewriting the whole file each time costs more
      // than the load being tested.
      try (FileChannel ch = FileChannel.open(bad, StandardOpenOption.WRITE)) {
        for (int bit = 0; bit < good.length * 8; bit++) {
          int at = bit >>> 3;
          ch.write(ByteBuffer.wrap(new byte[] {(byte) (good[at] ^ (1 << (bit & 7)))}), at);
          FilterFileException e =
              assertThrows(
                  FilterFileException.class, () -> FilterFile.load(bad).close(), "bit " + bit);
          assertTrue(e.getMessage().startsWith(bad + ": "), e.getMessage());
          ch.write(ByteBuffer.wrap(new byte[] {good[at]}), at);
        }
      }
      try (LoadedFilter restored = FilterFile.load(bad)) {
        assertEquals(3, restored.filter().count());
      }
    }
  }

  /** Every truncation, and any trailing byte, is detected. */
  @Test
  void everyTruncationAndAnyTrailingDataIsRejected() throws IOException {
    byte[] good =
        FilterFiles.write(
            dir.resolve("good.bbf"),
            new BbfGeometry(4, 4, 64),
            5,
            TestKeys.random(9, 3),
            FilterFiles.META);
    Path bad = dir.resolve("cut.bbf");
    for (int length = 0; length < good.length; length++) {
      rejected(bad, Arrays.copyOf(good, length));
    }
    assertRejected(Arrays.copyOf(good, good.length + 1), "trailing bytes");
    assertRejected(Arrays.copyOf(good, 100), "truncated");
    assertRejected(Arrays.copyOf(good, 10), "truncated");
  }

  @Test
  void foreignFilesAreRejectedByName() throws IOException {
    assertRejected(
        "hello, I am not a filter\n".repeat(10).getBytes(java.nio.charset.StandardCharsets.UTF_8),
        "not a BBF filter file");
    assertRejected(new byte[0], "not a BBF filter file");
    assertRejected(new byte[] {'B', 'B', 'F'}, "not a BBF filter file");
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13};
    assertRejected(Arrays.copyOf(png, 300), "found 89504e470d0a1a0a");
  }

  /**
   * A version 1 geometry (mask, power-of-two r) is written as version 1, loads as version 1 and
   * answers exactly as before; the same keys in a version 2 filter of the same r land in other
   * groups (the two are different layouts, never mixed: union refuses).
   */
  @Test
  void versionOneFilesAreWrittenAndReadAsVersionOne() throws IOException {
    byte[] members = TestKeys.random(31, 2000);
    byte[] probes = TestKeys.concat(TestKeys.random(32, 4000), members);
    BbfGeometry v1 = BbfGeometry.v1(64, 8, 64);
    Path file = dir.resolve("v1.bbf");
    try (BlockedBloomFilter original = FilterFiles.filter(v1, 0, members);
        BlockedBloomFilter v2 = FilterFiles.filter(new BbfGeometry(64, 8, 64), 0, members)) {
      FilterFile.write(file, original, FilterFiles.META);
      try (LoadedFilter loaded = FilterFile.load(file)) {
        assertEquals(1, loaded.formatVersion());
        assertEquals(v1, loaded.filter().geometry());
        assertEquals(-1, loaded.filter().bits().mismatch(original.bits()));
        for (int i = 0; i < TestKeys.count(probes); i++) {
          assertEquals(
              original.mightContain(probes, i * 32), loaded.filter().mightContain(probes, i * 32));
        }
      }
      assertTrue(v2.bits().mismatch(original.bits()) >= 0, "v1 and v2 place keys differently");
      assertThrows(IllegalArgumentException.class, () -> v2.union(original));
    }
  }

  @Test
  void newerAndInvalidVersionsAreRejected() throws IOException {
    byte[] good =
        FilterFiles.write(
            dir.resolve("good.bbf"),
            new BbfGeometry(4, 4, 64),
            0,
            TestKeys.random(10, 3),
            FilterFiles.META);
    assertRejected(FilterFiles.edited(good, b -> b.putInt(8, 3)), "format version 3 is newer");
    byte[] unchecked = good.clone();
    unchecked[8] = 7;
    assertRejected(unchecked, "format version 7 is newer");
    assertRejected(
        FilterFiles.edited(good, b -> b.putInt(8, -1)), "format version 4294967295 is newer");
    assertRejected(FilterFiles.edited(good, b -> b.putInt(8, 0)), "invalid format version 0");
  }

  @Test
  void missingFilesAndDirectoriesAreReportedByName() throws IOException {
    FilterFileException e =
        assertThrows(FilterFileException.class, () -> FilterFile.load(dir.resolve("absent.bbf")));
    assertTrue(e.getMessage().contains("absent.bbf") && e.problem().startsWith("cannot read"));
    assertThrows(FilterFileException.class, () -> FilterFile.load(dir));
  }

  /** Each field out of bounds, with valid checksums, so that only the field check can catch it. */
  @Test
  void everyFieldIsValidated() throws IOException {
    byte[] good =
        FilterFiles.write(
            dir.resolve("good.bbf"),
            new BbfGeometry(4, 4, 64),
            0,
            TestKeys.random(11, 3),
            FilterFiles.META);
    check(good, b -> b.putInt(12, 256), "header length 256");
    check(good, b -> b.putLong(16, 192), "dataOffset must be 128");
    check(good, b -> b.putLong(32, 0), "groups (r) must be in [1, 2^32]: 0");
    check(good, b -> b.putLong(32, 1L << 33), "groups (r) must be in [1, 2^32]");
    check(good, b -> b.putLong(32, 3), "dataLength 128 does not match"); // any r in version 2
    check(
        good,
        b -> b.putInt(8, 1).putLong(32, 3).putLong(24, 96),
        "groups (r) must be a power of two with MASK indexing (format version 1)");
    check(good, b -> b.putLong(32, 8), "dataLength 128 does not match");
    check(good, b -> b.putLong(32, 8).putLong(24, 256), "truncated: the file is 256 bytes");
    check(good, b -> b.putLong(32, 2).putLong(24, 64), "trailing bytes");
    check(good, b -> b.putLong(24, -128), "dataLength -128 does not match");
    check(good, b -> b.putShort(40, (short) 16), "k must be one of 2, 4, 8 for lw = 64: 16");
    check(good, b -> b.putShort(42, (short) 128), "wordBits (lw) must be 32 or 64: 128");
    check(good, b -> b.putShort(42, (short) 32), "dataLength 128 does not match");
    check(good, b -> b.putInt(44, 3), "unknown bit derivation id 3");
    check(good, b -> b.putInt(44, 2), "does not match the salt");
    check(good, b -> b.putLong(56, 77), "does not match the salt");
    check(good, b -> b.putLong(48, -5), "keyCount must be >= 0: -5");
    check(good, b -> b.putInt(64, 5), "kind must be in [0, 4]: 5");
    check(good, b -> b.putInt(64, -1), "kind must be in [0, 4]: -1");
    check(good, b -> b.putInt(68, -2), "blockFile must be >= 0, or -1 for none: -2");
    check(good, b -> b.putLong(72, -1), "bytesCovered must be >= 0: -1");
    check(good, b -> b.putLong(112, Long.MIN_VALUE), "buildTimeMillis must be >= 0");
    // Consistent edits load: a salted derivation, another key count, other metadata.
    byte[] fine =
        FilterFiles.edited(
            good, b -> b.putInt(44, 2).putLong(56, 77).putLong(48, 9).putInt(68, -1).putInt(64, 3));
    Path file = dir.resolve("edited.bbf");
    Files.write(file, fine);
    try (LoadedFilter loaded = FilterFile.load(file)) {
      assertEquals(77, loaded.filter().salt());
      assertEquals(2, loaded.filter().derivationId());
      assertEquals(9, loaded.filter().count());
      assertEquals(FilterKind.BLOCK_HASHES, loaded.metadata().kind());
      assertEquals(FilterMetadata.NO_BLOCK_FILE, loaded.metadata().blockFile());
    }
  }

  /** Fuzzer regression: a huge key count loads, and its modelled FPR comes back at once. */
  @Test
  void hugeKeyCountIsAllowedAndCheapToModel() throws IOException {
    byte[] good =
        FilterFiles.write(
            dir.resolve("good.bbf"),
            new BbfGeometry(8, 2, 32),
            0,
            TestKeys.random(13, 3),
            FilterFiles.META);
    Path file = dir.resolve("huge-count.bbf");
    Files.write(file, FilterFiles.edited(good, b -> b.putLong(48, Long.MAX_VALUE)));
    try (LoadedFilter loaded = FilterFile.load(file)) {
      assertEquals(Long.MAX_VALUE, loaded.filter().count());
      assertEquals(1.0, loaded.filter().modelledFpr());
    }
  }

  private void check(byte[] good, Consumer<ByteBuffer> edit, String expected) throws IOException {
    assertRejected(FilterFiles.edited(good, edit), expected);
  }

  @Test
  void checksumsAreVerified() throws IOException {
    byte[] good =
        FilterFiles.write(
            dir.resolve("good.bbf"),
            new BbfGeometry(4, 4, 64),
            0,
            TestKeys.random(12, 3),
            FilterFiles.META);
    byte[] data = good.clone();
    data[200] ^= 1;
    assertRejected(data, "data checksum mismatch");
    byte[] header = good.clone();
    header[50] ^= 1;
    assertRejected(header, "header checksum mismatch");
  }

  @Test
  void metadataIsValidatedWhenBuilt() {
    assertThrows(IllegalArgumentException.class, () -> FilterKind.fromCode(5));
    assertThrows(NullPointerException.class, () -> new FilterMetadata(null, 0, 0, new byte[32], 0));
    FilterKind tx = FilterKind.TX_BLOCK_FILE;
    assertThrows(
        IllegalArgumentException.class, () -> new FilterMetadata(tx, 0, 0, new byte[31], 0));
    assertThrows(
        IllegalArgumentException.class, () -> new FilterMetadata(tx, -3, 0, new byte[32], 0));
    byte[] tip = new byte[32];
    FilterMetadata m = new FilterMetadata(tx, 0, 0, tip, 0);
    tip[0] = 1;
    assertEquals(0, m.sourceTip()[0], "the tip must be copied");
    m.sourceTip()[1] = 1;
    assertEquals(0, m.sourceTip()[1], "the accessor must return a copy");
    if (m.equals(FilterMetadata.of(tx))) {
      fail("build times differ");
    }
  }
}
