package io.bbfindex.ingest.ownindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The own index file format (chain-ingest/OWN-INDEX-FORMAT.md): a golden file written by version 1
 * reads back and is what the writer writes byte for byte; any damaged, truncated or extended file
 * is refused naming the file; values round-trip at every width and shard count.
 */
class OwnIndexFormatTest {

  static final String GOLDEN = "/ownindex/golden-v1-1000keys-2shards.own";

  @TempDir Path tmp;

  /** The golden input: txid i = SHA-256 of i (4 bytes, big-endian); value from i. */
  static List<byte[]> goldenTxids() throws NoSuchAlgorithmException {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      out.add(md.digest(ByteBuffer.allocate(4).putInt(i).array()));
    }
    return out;
  }

  static final PositionPacking GOLDEN_PACKING = new PositionPacking(3, 20);

  static long[] goldenValues() {
    long[] v = new long[1000];
    for (int i = 0; i < v.length; i++) {
      v[i] = GOLDEN_PACKING.pack(i % 7, 1000 + 37L * i);
    }
    return v;
  }

  private Path writeGoldenInput(Path file) throws Exception {
    byte[] digest = new byte[32];
    Arrays.fill(digest, (byte) 0xd1);
    byte[] tip = new byte[32];
    Arrays.fill(tip, (byte) 0x7e);
    OwnIndexFiles.write(file, goldenTxids(), goldenValues(), GOLDEN_PACKING, 1, digest, tip, 599);
    return file;
  }

  private static byte[] golden() throws IOException {
    try (InputStream in = OwnIndexFormatTest.class.getResourceAsStream(GOLDEN)) {
      if (in == null) {
        throw new IOException("test resource " + GOLDEN + " missing");
      }
      return in.readAllBytes();
    }
  }

  @Test
  void theWriterWritesTheGoldenFileByteForByte() throws Exception {
    Path written = writeGoldenInput(tmp.resolve("now.own"));
    if (Boolean.getBoolean("bbf.writeGolden")) {
      Files.copy(written, Path.of("src/test/resources" + GOLDEN));
    }
    assertArrayEquals(golden(), Files.readAllBytes(written));
  }

  @Test
  void theGoldenFileReadsBack() throws Exception {
    Path file = tmp.resolve("golden.own");
    Files.write(file, golden());
    try (OwnIndexFile f = OwnIndexFile.open(file)) {
      OwnIndexHeader h = f.header();
      assertEquals(GOLDEN_PACKING, h.packing());
      assertEquals(1, h.shardBits());
      assertEquals(1000, h.keyCount());
      assertEquals(599, h.tipHeight());
      assertEquals((byte) 0x7e, h.tipHash()[31]);
      List<byte[]> txids = goldenTxids();
      long[] values = goldenValues();
      for (int i = 0; i < txids.size(); i++) {
        assertEquals(values[i], f.value(txids.get(i), 0), "key " + i);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3})
  void valuesRoundTripAtEveryShardCountAndWidth(int shardBits) throws Exception {
    Random rnd = new Random(shardBits);
    for (PositionPacking p :
        List.of(
            new PositionPacking(0, 1), new PositionPacking(13, 27), new PositionPacking(16, 40))) {
      int n = 1 + rnd.nextInt(5000);
      List<byte[]> txids = new ArrayList<>();
      long[] values = new long[n];
      for (int i = 0; i < n; i++) {
        byte[] t = new byte[32];
        rnd.nextBytes(t);
        txids.add(t);
        values[i] = rnd.nextLong() & PackedSlots.mask(p.valueBits());
      }
      Path file = tmp.resolve("rt-" + shardBits + "-" + p.valueBits() + ".own");
      OwnIndexFiles.write(file, txids, values, p, shardBits, new byte[32], new byte[32], 0);
      try (OwnIndexFile f = OwnIndexFile.open(file)) {
        for (int i = 0; i < n; i++) {
          assertEquals(values[i], f.value(txids.get(i), 0));
        }
      }
    }
  }

  @Test
  void anEmptyIndexOpensAndAnswersSomeValue() throws Exception {
    Path file = tmp.resolve("empty.own");
    OwnIndexFiles.write(
        file, List.of(), new long[0], GOLDEN_PACKING, 0, new byte[32], new byte[32], 0);
    try (OwnIndexFile f = OwnIndexFile.open(file)) {
      assertEquals(0, f.header().keyCount());
      assertEquals(0, f.value(new byte[32], 0));
    }
  }

  /** Every byte region: magic, header fields, header CRC, table, shard data, slack. */
  @ParameterizedTest
  @ValueSource(ints = {0, 8, 16, 24, 40, 100, 108, 112, 130, 176, 400, -1})
  void aFlippedByteAnywhereIsRefusedNamingTheFile(int at) throws Exception {
    Path file = writeGoldenInput(tmp.resolve("flip.own"));
    byte[] b = Files.readAllBytes(file);
    int i = at >= 0 ? at : b.length - 1;
    b[i] ^= 0x01;
    Files.write(file, b);
    OwnIndexCorruptException e =
        assertThrows(OwnIndexCorruptException.class, () -> OwnIndexFile.openVerified(file));
    assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    assertEquals(file, e.file());
  }

  @Test
  void truncatedAndExtendedFilesAreRefused() throws Exception {
    Path file = writeGoldenInput(tmp.resolve("cut.own"));
    byte[] b = Files.readAllBytes(file);
    for (int length : new int[] {0, 50, 112, 150, b.length - 8}) {
      Files.write(file, Arrays.copyOf(b, length));
      assertThrows(OwnIndexCorruptException.class, () -> OwnIndexFile.open(file), "" + length);
    }
    Files.write(file, Arrays.copyOf(b, b.length + 8));
    OwnIndexCorruptException e =
        assertThrows(OwnIndexCorruptException.class, () -> OwnIndexFile.open(file));
    assertTrue(e.getMessage().contains("after the last shard"), e.getMessage());
  }

  @Test
  void aNewerVersionIsRefusedAsSuch() throws Exception {
    Path file = writeGoldenInput(tmp.resolve("v2.own"));
    byte[] b = Files.readAllBytes(file);
    ByteBuffer h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    h.putInt(OwnIndexFormat.OFF_VERSION, 2);
    CRC32C crc = new CRC32C();
    crc.update(b, 0, OwnIndexFormat.OFF_HEADER_CRC);
    h.putInt(OwnIndexFormat.OFF_HEADER_CRC, (int) crc.getValue());
    Files.write(file, b);
    OwnIndexCorruptException e =
        assertThrows(OwnIndexCorruptException.class, () -> OwnIndexFile.open(file));
    assertTrue(e.getMessage().contains("format version 2"), e.getMessage());
  }

  /**
   * Opening checks the header and the shard table only; a damaged shard opens, answers nothing,
   * names itself to every lookup that reads it and to {@link OwnIndexFile#verifyAll}, and leaves
   * the other shard answering.
   */
  @ParameterizedTest
  @ValueSource(ints = {176, 400, -1})
  void aDamagedShardIsFoundAtItsFirstUseNamingFileAndShard(int at) throws Exception {
    Path file = writeGoldenInput(tmp.resolve("lazy.own"));
    byte[] b = Files.readAllBytes(file);
    int i = at >= 0 ? at : b.length - 1;
    b[i] ^= 0x01;
    Files.write(file, b);
    int damaged = at >= 0 ? 0 : 1; // the golden file's shard 0 starts at 176, shard 1 ends it
    List<byte[]> txids = goldenTxids();
    long[] values = goldenValues();
    try (OwnIndexFile f = OwnIndexFile.open(file)) {
      assertEquals(0, f.shardsVerified());
      int answered = 0;
      int refused = 0;
      for (int k = 0; k < txids.size(); k++) {
        if (TxidKeys.shard(TxidKeys.k0(txids.get(k), 0), 1) == damaged) {
          byte[] t = txids.get(k);
          OwnIndexCorruptException e =
              assertThrows(OwnIndexCorruptException.class, () -> f.value(t, 0));
          assertEquals(file, e.file());
          assertTrue(e.getMessage().contains("shard " + damaged + " CRC32C"), e.getMessage());
          refused++;
        } else {
          assertEquals(values[k], f.value(txids.get(k), 0), "key " + k);
          answered++;
        }
      }
      assertTrue(answered > 400 && refused > 400, answered + " answered, " + refused + " refused");
      assertEquals(1, f.shardsVerified());
      OwnIndexCorruptException all = assertThrows(OwnIndexCorruptException.class, f::verifyAll);
      assertTrue(all.getMessage().contains("shard " + damaged), all.getMessage());
    }
  }

  @Test
  void aSoundFileIsCheckedShardByShard() throws Exception {
    Path file = writeGoldenInput(tmp.resolve("sound.own"));
    try (OwnIndexFile f = OwnIndexFile.open(file)) {
      assertEquals(0, f.shardsVerified());
      f.value(goldenTxids().get(0), 0);
      assertEquals(1, f.shardsVerified());
      f.verifyAll();
      assertEquals(2, f.shardsVerified());
    }
  }
}
