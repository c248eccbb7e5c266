package io.bbfindex.ingest.ownindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fingerprint part format (chain-ingest/OWN-INDEX-FORMAT.md, "Fingerprint parts"): a golden
 * file written by version 1 byte for byte and read back; every stored txid found in its block, no
 * unknown txid found among a million; every damaged region refused with the file named; a store of
 * parts appended, reopened, and a damaged part set aside.
 */
class FingerprintPartTest {

  static final String GOLDEN = "/ownindex/golden-fp-v1-1000keys-5blocks-2shards.fpt";
  static final long GOLDEN_SALT = 0x5eed_5eed_5eed_5eedL;

  @TempDir Path tmp;

  /** Txid i = SHA-256 of i (4 bytes, big-endian), in block i % 5. */
  static List<byte[]> txids(int n) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          sha.digest(
              new byte[] {(byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i}));
    }
    return out;
  }

  /** Block k: hash all {@code 0xb0 + k}, height 100 + k. */
  static List<FingerprintBlock> blocks() {
    List<FingerprintBlock> out = new ArrayList<>();
    for (int k = 0; k < 5; k++) {
      byte[] hash = new byte[32];
      Arrays.fill(hash, (byte) (0xb0 + k));
      out.add(new FingerprintBlock(hash, 100 + k, 101 + k));
    }
    return out;
  }

  private Path writeGolden(Path file) throws Exception {
    List<byte[]> txids = txids(1000);
    FingerprintPartWriter.write(
        file,
        blocks(),
        1000,
        sink -> {
          for (int i = 0; i < txids.size(); i++) {
            sink.accept(txids.get(i), 0, i % 5);
          }
        },
        tmp.resolve("spill"),
        GOLDEN_SALT,
        1);
    return file;
  }

  private static byte[] golden() throws IOException {
    try (InputStream in = FingerprintPartTest.class.getResourceAsStream(GOLDEN)) {
      if (in == null) {
        throw new IOException("test resource " + GOLDEN + " missing");
      }
      return in.readAllBytes();
    }
  }

  @Test
  void theWriterWritesTheGoldenFileByteForByteAndItReadsBack() throws Exception {
    Path written = writeGolden(tmp.resolve("now.fpt"));
    if (Boolean.getBoolean("bbf.writeGolden")) {
      Files.copy(written, Path.of("src/test/resources" + GOLDEN));
    }
    assertArrayEquals(golden(), Files.readAllBytes(written));
    Path file = tmp.resolve("golden.fpt");
    Files.write(file, golden());
    try (FingerprintPart p = FingerprintPart.open(file)) {
      assertEquals(1000, p.keys());
      assertEquals(5, p.blocks().size());
      assertEquals(103, p.blocks().get(3).height());
      List<byte[]> txids = txids(1000);
      for (int i = 0; i < txids.size(); i++) {
        assertEquals(i % 5, p.find(txids.get(i), 0), "txid " + i);
      }
    }
  }

  @Test
  void noUnknownTxidIsFoundAmongAMillion() throws Exception {
    Path file = writeGolden(tmp.resolve("p.fpt"));
    try (FingerprintPart p = FingerprintPart.open(file)) {
      Random rnd = new Random(26);
      byte[] t = new byte[32];
      int found = 0;
      for (int i = 0; i < 1_000_000; i++) {
        rnd.nextBytes(t);
        found += p.find(t, 0) >= 0 ? 1 : 0;
      }
      // expected 1e6 x 2^-52 = 2.2e-10 false matches
      assertEquals(0, found);
    }
  }

  @Test
  void everyDamagedRegionIsRefusedNamingTheFile() throws Exception {
    byte[] good = Files.readAllBytes(writeGolden(tmp.resolve("p.fpt")));
    // header, block table, shard table, first and second shard's slots, the last byte
    int tables = FingerprintFormat.HEADER_BYTES + 5 * FingerprintFormat.BLOCK_ENTRY_BYTES;
    for (int at :
        new int[] {3, 20, 40, 70, tables + 5, tables + 70, good.length / 2, good.length - 1}) {
      byte[] bad = good.clone();
      bad[at] ^= 0x10;
      Path f = tmp.resolve("bad-" + at + ".fpt");
      Files.write(f, bad);
      OwnIndexCorruptException e =
          assertThrows(OwnIndexCorruptException.class, () -> FingerprintPart.open(f), "byte " + at);
      assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
    }
    Path cut = tmp.resolve("cut.fpt");
    Files.write(cut, Arrays.copyOf(good, good.length - 8));
    assertThrows(OwnIndexCorruptException.class, () -> FingerprintPart.open(cut));
  }

  @Test
  void aStoreAppendsPartsReopensThemAndSetsADamagedOneAside() throws Exception {
    Path dir = tmp.resolve(FingerprintStore.DIR_NAME);
    List<byte[]> txids = txids(3000);
    List<FingerprintBlock> all = blocks();
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    PrintStream log = new PrintStream(logged, true, StandardCharsets.UTF_8);
    try (FingerprintStore store = FingerprintStore.open(dir, log)) {
      assertEquals(0, store.parts());
      for (int part = 0; part < 3; part++) {
        int first = part * 1000;
        store.append(
            all.subList(part, part + 2),
            1000,
            sink -> {
              for (int i = first; i < first + 1000; i++) {
                sink.accept(txids.get(i), 0, i % 2);
              }
            },
            tmp.resolve("spill"));
      }
      assertEquals(3, store.parts());
      assertEquals(3000, store.keys());
      assertTrue(store.covers(all.get(3).hash()) && !store.covers(all.get(4).hash()));
      assertEquals(3 * Math.scalb(1.0, -52), store.falseConfirmedBound());
    }
    try (FingerprintStore store = FingerprintStore.open(dir, log)) {
      for (int i = 0; i < 3000; i++) {
        Optional<PrunedTx> hit = store.find(txids.get(i));
        assertTrue(hit.isPresent(), "txid " + i);
        FingerprintBlock b = all.get(i / 1000 + i % 2);
        assertArrayEquals(b.hash(), hit.get().blockHash(), "txid " + i);
        assertEquals(b.height(), hit.get().height());
      }
      assertFalse(store.find(new byte[32]).isPresent());
    }
    Path second = dir.resolve("part-00000001.fpt");
    byte[] bytes = Files.readAllBytes(second);
    bytes[bytes.length - 3] ^= 1;
    Files.write(second, bytes);
    try (FingerprintStore store = FingerprintStore.open(dir, log)) {
      assertEquals(2, store.parts());
      assertFalse(store.find(txids.get(1001)).isPresent(), "only in the damaged part");
      assertTrue(Files.exists(dir.resolve("part-00000001.fpt.corrupt")));
      assertTrue(logged.toString(StandardCharsets.UTF_8).contains("part-00000001.fpt"));
      // the next part is numbered after the highest seen
      store.append(
          all.subList(0, 1), 1, sink -> sink.accept(txids.get(0), 0, 0), tmp.resolve("spill"));
      assertTrue(Files.exists(dir.resolve("part-00000003.fpt")));
    }
  }
}
