package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import org.bitcoinj.base.Sha256Hash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Block files obfuscated as Bitcoin Core >= 28 does ({@code -blocksxor}): byte p of each blk/rev
 * file stored as {@code plain[p] ^ key[p % 8]}, key in {@code blocks/xor.dat}. Core XORs what it
 * writes; the preallocated tail it never wrote stays raw zeros, and so it does here.
 */
class BlocksXorTest {

  private static final byte[] KEY = HexFormat.of().parseHex("a1b2c3d4e5f60718");

  @TempDir Path tmp;

  /** XORs the first {@code used} bytes of {@code file} in place with {@code key[p % 8]}. */
  static void xorLikeCore(Path file, long used, byte[] key) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer buf = ByteBuffer.allocate(1 << 20);
      for (long p = 0; p < used; p += buf.capacity()) {
        buf.clear().limit((int) Math.min(buf.capacity(), used - p));
        ch.read(buf, p);
        for (int i = 0; i < buf.limit(); i++) {
          buf.put(i, (byte) (buf.get(i) ^ key[(int) ((p + i) & 7)]));
        }
        buf.flip();
        ch.write(buf, p);
      }
    }
  }

  private Path obfuscatedDatadir(Archive a) throws IOException {
    Path dd = Fixtures.extract(a, tmp.resolve("data"));
    try (NodeIndex plain = NodeIndex.open(dd, tmp.resolve("work-plain"))) {
      for (BlockFileInfo f : plain.blockFiles().values()) {
        xorLikeCore(plain.blockFileReader().blockFile(f.file()), f.size(), KEY);
        Path rev = dd.resolve("blocks").resolve(String.format("rev%05d.dat", f.file()));
        xorLikeCore(rev, f.undoSize(), KEY);
      }
    }
    return dd;
  }

  @Test
  void everyTransactionResolvesAndHashesThroughTheXorKey() throws IOException {
    Archive a = Archive.REGTEST_B;
    Path dd = obfuscatedDatadir(a);
    Path xorDat = dd.resolve("blocks/xor.dat");

    // without the key the files are unreadable, and open says so
    DataDirException missing =
        assertThrows(DataDirException.class, () -> NodeIndex.open(dd, tmp.resolve("w0")));
    assertTrue(missing.getMessage().contains("xor.dat"), missing.getMessage());

    Files.write(xorDat, KEY);
    List<TxRow> rows = Fixtures.txRows(a);
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("w1"))) {
      for (TxRow r : rows) {
        TxLocation loc = idx.findTx(r.txidInternal()).orElseThrow();
        assertEquals(r.absOffset(), loc.txFileOffset());
        assertEquals(r.txidHex(), idx.readTransaction(loc).getTxId().toString());
      }
      // the scanner de-obfuscates too, and stops at the raw zero tail
      int[] n = {0};
      idx.blockFileReader()
          .scan(
              0,
              (dataPos, size, header) -> {
                assertTrue(idx.findBlock(Sha256Hash.hashTwice(header)).isPresent());
                n[0]++;
                return true;
              });
      assertEquals(idx.blockFiles().get(0).blocks(), n[0]);
      for (BlockInfo b : idx.blocks()) {
        assertEquals(
            b.hashHex(),
            Sha256Hash.wrapReversed(
                    Sha256Hash.hashTwice(idx.blockFileReader().readHeader(b.file(), b.dataPos())))
                .toString());
      }
    }
  }

  @Test
  void anAllZeroKeyMeansNoObfuscation() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("data"));
    Files.write(dd.resolve("blocks/xor.dat"), new byte[8]);
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("w"))) {
      TxRow r = Fixtures.txRows(Archive.MAINNET_LDB).get(0);
      assertEquals(
          r.txidHex(),
          idx.readTransaction(idx.findTx(r.txidInternal()).orElseThrow()).getTxId().toString());
    }
  }

  @Test
  void aKeyFileOfAnyOtherLengthIsRefused() throws IOException {
    Path dd = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("data"));
    for (int len : new int[] {0, 7, 9, 32}) {
      Files.write(dd.resolve("blocks/xor.dat"), new byte[len]);
      DataDirException e =
          assertThrows(DataDirException.class, () -> NodeIndex.open(dd, tmp.resolve("w")));
      assertEquals(dd.resolve("blocks/xor.dat"), e.path());
      assertTrue(e.getMessage().contains("exactly 8"), e.getMessage());
    }
    try (var left = Files.list(tmp.resolve("w"))) {
      assertEquals(0, left.count(), "a failed open leaves no snapshot behind");
    }
  }
}
