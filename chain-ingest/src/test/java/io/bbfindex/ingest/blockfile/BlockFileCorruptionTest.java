package io.bbfindex.ingest.blockfile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.LittleEndian;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbled and truncated copies of a real blk file (regtest fixture: legacy, p2sh-segwit and bech32
 * transactions): every read either raises {@link CorruptRecordException} or returns the very
 * transaction asked for.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BlockFileCorruptionTest {

  private static final long SEED = 0xB10CL;

  @TempDir static Path tmp;

  /**
   * A ground-truth row with its block's hash and record size and the tx length, from the pristine
   * file.
   */
  private record Target(TxRow row, byte[] blockHash, long recordSize, int txLength) {}

  private static final byte[] REGTEST_MAGIC = HexFormat.of().parseHex("fabfb5da");

  private Path pristineBlk;
  private BlockFileReader pristine;
  private final List<Target> targets = new ArrayList<>();

  @BeforeAll
  void setUp() throws IOException {
    Path dd = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
    pristine = new BlockFileReader(dd.resolve("blocks"), BlocksXorKey.NONE, null);
    for (TxRow r : Fixtures.txRows(Archive.REGTEST_B)) {
      byte[] header = pristine.readHeader(r.file(), r.pos());
      byte[] hash = Sha256Hash.hashTwice(header);
      Transaction tx =
          pristine.readTransaction(r.file(), r.pos(), r.txOffset(), r.txidInternal(), hash);
      targets.add(
          new Target(
              r, hash, recordSize(dd.resolve("blocks/blk00000.dat"), r.pos()), tx.messageSize()));
    }
    pristineBlk = dd.resolve("blocks/blk00000.dat");
  }

  @AfterAll
  void tearDown() throws IOException {
    pristine.close();
  }

  /** A private copy of the blk file, in its own blocks dir, for one test to damage. */
  private Path copyFor(String test) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve(test));
    return Files.copy(pristineBlk, dir.resolve("blk00000.dat"));
  }

  private static long recordSize(Path blk, long dataPos) throws IOException {
    try (FileChannel ch = FileChannel.open(blk)) {
      ByteBuffer b = ByteBuffer.allocate(4);
      ch.read(b, dataPos - 4);
      return LittleEndian.uint32(b.array(), 0);
    }
  }

  @Test
  void garbledBytesNeverYieldAnotherTransaction() throws IOException {
    Path copy = copyFor("garbled");
    Random rnd = new Random(SEED);
    int caught = 0;
    int survived = 0;
    try (FileChannel ch =
            FileChannel.open(copy, StandardOpenOption.READ, StandardOpenOption.WRITE);
        BlockFileReader damaged =
            new BlockFileReader(copy.getParent(), BlocksXorKey.NONE, REGTEST_MAGIC)) {
      for (int i = 0; i < 4000; i++) {
        Target t = targets.get(rnd.nextInt(targets.size()));
        long txStart = t.row().absOffset();
        // the 8-byte prefix, the header, the tx-count/previous txs, or the transaction itself
        long pos =
            switch (rnd.nextInt(4)) {
              case 0 -> t.row().pos() - 8 + rnd.nextInt(8);
              case 1 -> t.row().pos() + rnd.nextInt(80);
              case 2 -> t.row().pos() + 80 + rnd.nextLong(t.row().txOffset());
              default -> txStart + rnd.nextInt(t.txLength());
            };
        ByteBuffer orig = ByteBuffer.allocate(1);
        ch.read(orig, pos);
        byte flipped = (byte) (orig.get(0) ^ (1 + rnd.nextInt(255)));
        ch.write(ByteBuffer.wrap(new byte[] {flipped}), pos);
        try {
          Transaction tx =
              damaged.readTransaction(
                  t.row().file(),
                  t.row().pos(),
                  t.row().txOffset(),
                  t.row().txidInternal(),
                  t.blockHash());
          // Legitimate only when the byte is not covered by the txid: the witness, a size field
          // that still bounds the record, or bytes of other transactions in the block.
          assertArrayEquals(
              t.row().txidInternal(), tx.getTxId().getReversedBytes(), "seed " + SEED);
          survived++;
        } catch (CorruptRecordException expected) {
          caught++;
        } catch (IOException | RuntimeException | Error e) {
          fail("only CorruptRecordException may escape; seed " + SEED + " iteration " + i, e);
        } finally {
          orig.rewind();
          ch.write(orig, pos);
        }
      }
    }
    System.out.printf("blk garbling: %d caught, %d harmless (same txid)%n", caught, survived);
    // a reader that failed everything would pass the loop: the bytes it was given must be fine
    // again
    try (BlockFileReader restored =
        new BlockFileReader(copy.getParent(), BlocksXorKey.NONE, REGTEST_MAGIC)) {
      for (Target t : targets) {
        restored.readTransaction(
            0, t.row().pos(), t.row().txOffset(), t.row().txidInternal(), t.blockHash());
      }
    }
    assertTrue(caught > 1000 && survived > 100, "caught " + caught + ", harmless " + survived);
  }

  @Test
  void truncatedFilesFailExactlyForTheRecordsCutOff() throws IOException {
    Path copy = copyFor("truncated");
    Random rnd = new Random(SEED);
    long used = targets.stream().mapToLong(t -> t.row().pos() + t.recordSize()).max().orElseThrow();
    List<Long> lengths = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      lengths.add(rnd.nextLong(used));
    }
    lengths.add(used - 1);
    lengths.add(0L);
    lengths.sort(Collections.reverseOrder());
    try (FileChannel ch = FileChannel.open(copy, StandardOpenOption.WRITE);
        BlockFileReader damaged =
            new BlockFileReader(copy.getParent(), BlocksXorKey.NONE, REGTEST_MAGIC)) {
      for (long len : lengths) {
        ch.truncate(len);
        for (int i = 0; i < 300; i++) {
          Target t = targets.get(rnd.nextInt(targets.size()));
          boolean whole = t.row().pos() + t.recordSize() <= len;
          if (whole) {
            damaged.readTransaction(
                t.row().file(),
                t.row().pos(),
                t.row().txOffset(),
                t.row().txidInternal(),
                t.blockHash());
          } else {
            assertThrows(
                CorruptRecordException.class,
                () ->
                    damaged.readTransaction(
                        t.row().file(),
                        t.row().pos(),
                        t.row().txOffset(),
                        t.row().txidInternal(),
                        t.blockHash()),
                "truncated at " + len);
          }
        }
        if (len % 2 == 0) {
          long[] end = {0};
          try {
            damaged.scan(
                0,
                (dataPos, size, header) -> {
                  end[0] = dataPos + size;
                  return true;
                });
            assertTrue(end[0] <= len);
          } catch (CorruptRecordException expected) {
            // a record cut in its middle
          }
        }
      }
    }
  }

  @Test
  void sizesAndPositionsAreBoundedBeforeReading() throws IOException {
    Target t = targets.get(0);
    byte[] txid = t.row().txidInternal();
    // a position before the first prefix, inside the zero tail, past the end
    assertThrows(CorruptRecordException.class, () -> pristine.readTransaction(0, 3, 1, txid, null));
    assertThrows(
        CorruptRecordException.class, () -> pristine.readTransaction(0, 16_000_000, 1, txid, null));
    assertThrows(
        CorruptRecordException.class,
        () -> pristine.readTransaction(0, Long.MAX_VALUE - 10, 1, txid, null));
    // a tx offset outside the block record, and zero (the tx count comes first)
    assertThrows(
        CorruptRecordException.class,
        () -> pristine.readTransaction(0, t.row().pos(), t.recordSize(), txid, null));
    assertThrows(
        CorruptRecordException.class,
        () -> pristine.readTransaction(0, t.row().pos(), 0, txid, null));
    // a wrong expected block hash
    assertThrows(
        CorruptRecordException.class,
        () -> pristine.readTransaction(0, t.row().pos(), t.row().txOffset(), txid, new byte[32]));
    // an absurd record size: write 0xffffffff into a copy's size field
    Path copy = copyFor("bounds");
    try (FileChannel ch =
            FileChannel.open(copy, StandardOpenOption.READ, StandardOpenOption.WRITE);
        BlockFileReader damaged =
            new BlockFileReader(copy.getParent(), BlocksXorKey.NONE, REGTEST_MAGIC)) {
      ByteBuffer orig = ByteBuffer.allocate(4);
      ch.read(orig, t.row().pos() - 4);
      ch.write(ByteBuffer.wrap(new byte[] {-1, -1, -1, -1}), t.row().pos() - 4);
      CorruptRecordException e =
          assertThrows(
              CorruptRecordException.class,
              () ->
                  damaged.readTransaction(
                      0, t.row().pos(), t.row().txOffset(), txid, t.blockHash()));
      assertTrue(e.getMessage().contains("blk00000.dat"), e.getMessage());
      orig.rewind();
      ch.write(orig, t.row().pos() - 4);
      assertEquals(
          t.row().txidHex(),
          damaged
              .readTransaction(0, t.row().pos(), t.row().txOffset(), txid, t.blockHash())
              .getTxId()
              .toString());
    }
  }
}
