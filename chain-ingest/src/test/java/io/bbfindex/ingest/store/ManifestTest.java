package io.bbfindex.ingest.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.store.Manifest.BlockHashEntry;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manifest round-trips, and every truncation, every seeded garbling, an unknown version and
 * nonsense fields give a {@link FilterStoreException} naming the manifest file, never a manifest.
 */
class ManifestTest {

  private static final long SEED = 0x3A41_FE57L;

  @TempDir Path dir;

  static Manifest sample() {
    byte[] tip = new byte[32];
    for (int i = 0; i < 32; i++) {
      tip[i] = (byte) (i * 7 + 1);
    }
    List<FileEntry> files = new ArrayList<>();
    for (int f = 0; f < 3; f++) {
      files.add(
          new FileEntry(
              f,
              "tx-blk0000" + f + ".bbf",
              1000 + f,
              1200 + f,
              100 + f,
              134_000_000L + f,
              500 + f,
              0xCAFE0000 | f));
    }
    return new Manifest(
        1,
        1_763_700_000_000L,
        "/data/bitcoin dir/with spaces=and:colons",
        tip,
        599,
        598,
        2,
        0x0123_4567_89AB_CDEFL,
        0.01,
        0.005,
        1.25,
        3003,
        new SummaryEntry("tx-summary.bbf", 3004, 8000, 0x1234_5678),
        new BlockHashEntry("block-hashes.bbf", 600, "ab".repeat(32), 0x8765_4321),
        files);
  }

  @Test
  void equalExactlyWhenTheTextIsTheSame() {
    Manifest m = sample();
    List<Manifest> variants = new ArrayList<>();
    variants.add(m.withTxindexTipHeight(597));
    variants.add(m.withBlocks(new BlockHashEntry("block-hashes.bbf", 600, "cd".repeat(32), 1)));
    variants.add(m.withSummary(new SummaryEntry("tx-summary.bbf", 3004, 8001, 0x1234_5678)));
    variants.add(m.withFiles(m.files().subList(0, 2)));
    variants.add(m.withFiles(List.of(m.files().get(0).withoutFilterFile())));
    byte[] otherTip = m.tipHash();
    otherTip[31] ^= 1;
    variants.add(copy(m, otherTip, 0.01, 0.005, 1.25));
    variants.add(copy(m, m.tipHash(), 0.010000000000000002, 0.005, 1.25));
    variants.add(copy(m, m.tipHash(), 0.01, -0.0, 1.25));
    variants.add(copy(m, m.tipHash(), 0.01, 0.0, 1.25));
    variants.add(copy(m, m.tipHash(), 0.01, 0.005, Double.NaN));
    variants.add(
        copy(m, m.tipHash(), 0.01, 0.005, Double.longBitsToDouble(0x7ff8_0000_0000_0001L)));
    variants.add(copy(m, m.tipHash(), 0.01, 0.005, 1.25)); // equal, another instance
    variants.add(m);
    for (Manifest a : variants) {
      for (Manifest b : variants) {
        boolean sameText = ManifestCodec.render(a).equals(ManifestCodec.render(b));
        assertEquals(sameText, a.equals(b), a + " vs " + b);
        if (sameText) {
          assertEquals(a.hashCode(), b.hashCode());
        }
      }
    }
  }

  @Test
  void fileKeysAreZeroPaddedAsFormatPadsThem() {
    for (int f : new int[] {0, 7, 42, 999, 9999, 10_000, 99_999, 100_000, 1 << 20, -1, -12_345}) {
      assertEquals(
          String.format(java.util.Locale.ROOT, "file.%05d", f), ManifestCodec.fileKey(f), "" + f);
    }
  }

  private static Manifest copy(
      Manifest m, byte[] tip, double targetFpr, double summaryFpr, double headroom) {
    return new Manifest(
        m.filterFormatVersion(),
        m.createdMillis(),
        m.datadir(),
        tip,
        m.tipHeight(),
        m.txindexTipHeight(),
        m.derivationId(),
        m.salt(),
        targetFpr,
        summaryFpr,
        headroom,
        m.records(),
        m.summary(),
        m.blocks(),
        m.files());
  }

  @Test
  void roundTripsEveryField() throws IOException {
    Manifest m = sample();
    ManifestFile.write(dir, m);
    Manifest back = ManifestFile.read(dir);
    assertEquals(m, back);
    assertEquals(ManifestCodec.render(m), ManifestCodec.render(back));
    assertArrayEquals(m.tipHash(), back.tipHash());
    assertEquals("/data/bitcoin dir/with spaces=and:colons", back.datadir());
    assertEquals(0x0123_4567_89AB_CDEFL, back.salt());
    assertEquals(0.005, back.summaryFpr());
    assertEquals(1001, back.file(1).orElseThrow().keys());
    assertEquals(3003, back.txKeys());
    assertTrue(Files.readString(dir.resolve(ManifestFile.FILE_NAME)).endsWith("\n"));
  }

  @Test
  void findsEachFileEntryByNumberWhateverOrderTheyCameIn() {
    Manifest m = sample();
    List<FileEntry> shuffled = new ArrayList<>();
    for (int f : new int[] {7, 2, 90, 3, 0, 41}) {
      shuffled.add(new FileEntry(f, "tx-" + f + ".bbf", f, f, f, f, f, f));
    }
    Manifest back = m.withFiles(shuffled);
    for (int f : new int[] {0, 2, 3, 7, 41, 90}) {
      assertEquals(f, back.file(f).orElseThrow().file());
    }
    for (int f : new int[] {-1, 1, 4, 8, 40, 42, 89, 91, Integer.MAX_VALUE}) {
      assertTrue(back.file(f).isEmpty(), "no entry " + f);
    }
    assertTrue(m.withFiles(List.of()).file(0).isEmpty());
  }

  /**
   * Serve reads the salt and the target FPR before the store it then verifies with a full parse:
   * from the header lines alone, after the checksum, so a manifest that a parse refuses for its
   * checksum gives neither.
   */
  @Test
  void theSaltAndTargetFprAreReadFromTheHeaderAfterTheChecksum() throws IOException {
    Manifest m = sample();
    ManifestFile.write(dir, m);
    assertEquals(0x0123_4567_89AB_CDEFL, ManifestFile.readSalt(dir));
    assertEquals(m.targetFpr(), ManifestFile.readTargetFpr(dir));

    byte[] full = ManifestCodec.render(m).getBytes(StandardCharsets.UTF_8);
    Path file = dir.resolve(ManifestFile.FILE_NAME);
    for (int len = 0; len < full.length; len += 7) {
      byte[] cut = Arrays.copyOf(full, len);
      assertThrows(FilterStoreException.class, () -> ManifestCodec.salt(file, cut), "len " + len);
      assertThrows(
          FilterStoreException.class, () -> ManifestCodec.targetFpr(file, cut), "len " + len);
    }
    String text = new String(full, StandardCharsets.UTF_8);
    byte[] flipped = text.replace("salt=0123", "salt=0124").getBytes(StandardCharsets.UTF_8);
    FilterStoreException e =
        assertThrows(FilterStoreException.class, () -> ManifestCodec.salt(file, flipped));
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
  }

  @Test
  void aTruncatedFileOnDiskIsRefusedNamingIt() throws IOException {
    byte[] full = ManifestCodec.render(sample()).getBytes(StandardCharsets.UTF_8);
    Path file = dir.resolve(ManifestFile.FILE_NAME);
    Files.write(file, Arrays.copyOf(full, full.length / 2));
    FilterStoreException e = assertThrows(FilterStoreException.class, () -> ManifestFile.read(dir));
    assertEquals(file, e.file());
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
  }

  @Test
  void everyTruncationIsRefusedNamingTheFile() throws IOException {
    byte[] full = ManifestCodec.render(sample()).getBytes(StandardCharsets.UTF_8);
    Path file = dir.resolve(ManifestFile.FILE_NAME);
    for (int len = 0; len < full.length; len++) {
      byte[] cut = Arrays.copyOf(full, len);
      FilterStoreException e =
          assertThrows(
              FilterStoreException.class, () -> ManifestCodec.parse(file, cut), "length " + len);
      assertTrue(e.getMessage().startsWith(file.toString() + ": "), e.getMessage());
      assertEquals(file, e.file());
    }
  }

  @Test
  void seededGarblingIsRefusedNamingTheFile() throws IOException {
    byte[] full = ManifestCodec.render(sample()).getBytes(StandardCharsets.UTF_8);
    Path file = dir.resolve(ManifestFile.FILE_NAME);
    SplittableRandom rnd = new SplittableRandom(SEED);
    for (int trial = 0; trial < 20_000; trial++) {
      byte[] b = full.clone();
      int at = rnd.nextInt(b.length);
      byte was = b[at];
      b[at] = (byte) (was ^ (1 + rnd.nextInt(255)));
      FilterStoreException e =
          assertThrows(
              FilterStoreException.class,
              () -> ManifestCodec.parse(file, b),
              "seed " + SEED + " trial " + trial + " byte " + at);
      assertEquals(file, e.file());
    }
  }

  /** A manifest with a valid checksum whose body breaks a rule. */
  private FilterStoreException refusedBody(String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    CRC32C c = new CRC32C();
    c.update(b);
    Files.writeString(
        dir.resolve(ManifestFile.FILE_NAME), body + String.format("crc32c=%08x%n", c.getValue()));
    return assertThrows(FilterStoreException.class, () -> ManifestFile.read(dir));
  }

  private static String body() {
    String r = ManifestCodec.render(sample());
    return r.substring(0, r.lastIndexOf("crc32c="));
  }

  @Test
  void validChecksumButBrokenRulesAreRefusedWithTheLine() throws IOException {
    assertTrue(
        refusedBody(body().replace("version=1\n", "version=2\n"))
            .getMessage()
            .contains("version 2"));
    assertTrue(
        refusedBody(body().replace("tipHeight=599", "tipHeight=-4"))
            .getMessage()
            .contains("line 7"));
    assertTrue(
        refusedBody(body().replace("targetFpr=0.01", "targetFpr=1.5"))
            .getMessage()
            .contains("targetFpr"));
    assertTrue(refusedBody(body().replace("salt=", "salt=zz")).getMessage().contains("salt"));
    assertTrue(
        refusedBody(body() + "surprise=1\n").getMessage().contains("unknown field 'surprise'"));
    assertTrue(
        refusedBody(body().replace("records=3003\n", ""))
            .getMessage()
            .contains("lacks field 'records'"));
    assertTrue(refusedBody(body() + "records=1\n").getMessage().contains("twice"));
    assertTrue(
        refusedBody(body().replace("name:tx-blk00001.bbf", "name:../../etc/passwd"))
            .getMessage()
            .contains("invalid filter file"));
    assertTrue(
        refusedBody(body().replace(" fSize:134000001", ""))
            .getMessage()
            .contains("exactly the parts"));
    assertTrue(
        refusedBody(body().replace("derivation=2", "derivation=1")).getMessage().contains("salt"));
    assertTrue(
        refusedBody(body().replace("format=bbf-index-manifest", "format=other"))
            .getMessage()
            .contains("not a bbf-index manifest"));
  }

  @Test
  void aMissingManifestSaysThereIsNoStore() {
    FilterStoreException e = assertThrows(FilterStoreException.class, () -> ManifestFile.read(dir));
    assertTrue(e.getMessage().contains("no manifest"), e.getMessage());
    assertEquals(dir.resolve(ManifestFile.FILE_NAME), e.file());
  }

  @Test
  void aDatadirWithALineBreakIsRefusedAtConstruction() {
    Manifest m = sample();
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new Manifest(
                1,
                0,
                "a\nb",
                m.tipHash(),
                0,
                0,
                1,
                0,
                0.01,
                0.01,
                1.25,
                0,
                m.summary(),
                m.blocks(),
                m.files()));
  }
}
