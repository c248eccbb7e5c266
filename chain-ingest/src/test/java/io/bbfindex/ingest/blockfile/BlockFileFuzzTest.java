package io.bbfindex.ingest.blockfile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.LittleEndian;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.txindex.BlockDataTxSource;
import io.bbfindex.ingest.txindex.TxidHasher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.base.VarInt;
import org.bitcoinj.core.Transaction;

/**
 * Fuzz target: parsing of a {@code blk?????.dat} file, by the three readers the ingest and the
 * lookups use: {@link BlockFileReader#scan} (framing), {@link BlockFileReader#readHeader} and
 * {@link BlockFileReader#readTransaction} (a lookup's read), and {@link BlockDataTxSource} with its
 * {@link TxidHasher} (the txids of a hashed txindex's blocks).
 *
 * <p>Input: a mode byte (bit 0: the file is XORed with the key that follows, as Core >= 28 writes
 * it; bit 1: the block index claims the transaction count that follows for every block, instead of
 * the count the block itself starts with), an 8-byte key, a 4-byte count (LE), then the file.
 *
 * <p>Invariants: the readers only refuse with {@link CorruptRecordException} ({@link
 * IndexReadException} from the txid source); the records a scan reports are inside the file, in
 * order, without overlap, of a size within Core's bounds, and their headers are the file's bytes; a
 * scan that stops early stops at the zeros of a preallocated tail, not at garbage; the header read
 * at a record's position is the one the scan saw; and every transaction either reader accepts has
 * the txid and the length that bitcoinj, parsing the same bytes, finds. A block index claiming more
 * transactions than the file can hold must be refused, not allocated for (the fuzz run's heap is
 * small for this).
 */
class BlockFileFuzzTest {

  private static final int INPUT_HEADER = 13;

  /** Records checked one by one per input: enough for the seeds, bounded for speed. */
  private static final int MAX_RECORDS = 16;

  private static final Path DIR = tempDir();

  private record Record(long dataPos, long size, byte[] header) {}

  @FuzzTest
  void parse(byte[] input) throws IOException {
    if (input.length < INPUT_HEADER) {
      return;
    }
    BlocksXorKey xor =
        (input[0] & 1) != 0 ? BlocksXorKey.of(Arrays.copyOfRange(input, 1, 9)) : BlocksXorKey.NONE;
    long claimedTxs = (input[0] & 2) != 0 ? LittleEndian.uint32(input, 9) : -1;
    byte[] raw = Arrays.copyOfRange(input, INPUT_HEADER, input.length);
    Files.write(DIR.resolve("blk00000.dat"), raw);
    byte[] plain = raw.clone();
    xor.apply(plain, 0, plain.length, 0);

    List<Record> records = new ArrayList<>();
    try (BlockFileReader reader = new BlockFileReader(DIR, xor, null)) {
      scan(reader, raw, plain, records);
      for (Record r : records.subList(0, Math.min(records.size(), MAX_RECORDS))) {
        readOne(reader, plain, r);
      }
    }
    if (!records.isEmpty()) {
      try (BlockFileReader reader = new BlockFileReader(DIR, xor, null)) {
        txidsFromBlockData(reader, xor, plain, records, claimedTxs);
      }
    }
  }

  private static void scan(BlockFileReader reader, byte[] raw, byte[] plain, List<Record> out)
      throws IOException {
    try {
      reader.scan(
          0,
          (dataPos, size, header) -> {
            out.add(new Record(dataPos, size, header));
            return true;
          });
    } catch (CorruptRecordException refused) {
      return; // what came before the corruption was still checked below
    } finally {
      long end = 0;
      for (Record r : out) {
        assertTrue(r.dataPos() >= end + BlockFileReader.PREFIX_BYTES, "records overlap: " + r);
        assertTrue(
            r.size() > BlockFileReader.HEADER_BYTES && r.size() <= BlockFileReader.MAX_BLOCK_RECORD,
            "record size out of bounds: " + r);
        assertTrue(r.dataPos() + r.size() <= plain.length, "record past the end of the file");
        assertArrayEquals(
            Arrays.copyOfRange(plain, (int) r.dataPos(), (int) r.dataPos() + 80), r.header());
        end = r.dataPos() + r.size();
      }
    }
    long end = out.isEmpty() ? 0 : out.getLast().dataPos() + out.getLast().size();
    if (end + BlockFileReader.PREFIX_BYTES <= raw.length) {
      assertArrayEquals(
          new byte[4],
          Arrays.copyOfRange(raw, (int) end, (int) end + 4),
          "the scan stopped at " + end + " without a preallocated (zero) tail or a refusal");
    }
  }

  /** The lookup path: the header at the record, then its first transaction. */
  private static void readOne(BlockFileReader reader, byte[] plain, Record r) throws IOException {
    assertArrayEquals(r.header(), reader.readHeader(0, r.dataPos()));
    int countAt = (int) r.dataPos() + BlockFileReader.HEADER_BYTES;
    int txOffset = compactSizeLength(plain[countAt]);
    Transaction tx;
    try {
      tx = reader.readTransaction(0, r.dataPos(), txOffset, null, Sha256Hash.hashTwice(r.header()));
    } catch (CorruptRecordException refused) {
      return;
    }
    int txStart = countAt + txOffset;
    int blockEnd = (int) (r.dataPos() + r.size());
    Parsed reference = bitcoinj(plain, txStart, blockEnd);
    assertTrue(reference != null, "readTransaction accepted what bitcoinj cannot parse");
    assertArrayEquals(
        reference.txid(), tx.getTxId().getReversedBytes(), "txid differs from bitcoinj's");
  }

  /** The ingest path of a hashed txindex: every transaction of every block, by TxidHasher. */
  private static void txidsFromBlockData(
      BlockFileReader reader, BlocksXorKey xor, byte[] plain, List<Record> records, long claimed) {
    List<BlockInfo> blocks = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      Record r = records.get(i);
      long count = claimed >= 0 ? claimed : txCount(plain, r);
      blocks.add(
          new BlockInfo(
              Sha256Hash.hashTwice(r.header()),
              i,
              BlockStatus.HAVE_DATA,
              (int) count,
              0,
              r.dataPos(),
              -1,
              r.header(),
              true,
              records.size() - i));
    }
    TxidHasher hasher = new TxidHasher();
    for (Record r : records) {
      checkLengths(hasher, plain, r);
    }
    List<long[]> seen = new ArrayList<>();
    List<byte[]> txids = new ArrayList<>();
    try {
      new BlockDataTxSource(blocks, reader, xor, 1)
          .forEachTx(
              0,
              256,
              (txid, file, dataPos, txOffset) -> {
                seen.add(new long[] {dataPos, txOffset});
                txids.add(txid.clone());
              });
    } catch (IndexReadException refused) {
      assertTrue(
          refused.getCause() instanceof CorruptRecordException,
          "refused without naming the corruption: " + refused);
      return;
    }
    for (int i = 0; i < seen.size(); i++) {
      long dataPos = seen.get(i)[0];
      int txStart = (int) (dataPos + BlockFileReader.HEADER_BYTES + seen.get(i)[1]);
      Record r = records.stream().filter(x -> x.dataPos() == dataPos).findFirst().orElseThrow();
      Parsed reference = bitcoinj(plain, txStart, (int) (r.dataPos() + r.size()));
      if (reference == null) {
        continue; // TxidHasher reads Core's format; bitcoinj may refuse what Core's reader reads
      }
      assertArrayEquals(
          reference.txid(),
          txids.get(i),
          "TxidHasher's txid of the transaction at "
              + txStart
              + " differs from bitcoinj's: "
              + HexFormat.of()
                  .formatHex(Arrays.copyOfRange(plain, txStart, (int) (r.dataPos() + r.size()))));
    }
  }

  /** TxidHasher's transaction boundaries are bitcoinj's wherever both parse the block. */
  private static void checkLengths(TxidHasher hasher, byte[] plain, Record r) {
    int p = (int) r.dataPos() + BlockFileReader.HEADER_BYTES;
    p += compactSizeLength(plain[p]);
    int end = (int) (r.dataPos() + r.size());
    byte[] txid = new byte[32];
    while (p < end) {
      Parsed reference = bitcoinj(plain, p, end);
      int next;
      try {
        next = hasher.hash(plain, p, end, txid, 0);
      } catch (CorruptRecordException refused) {
        return;
      }
      if (reference == null) {
        return;
      }
      assertEquals(reference.length(), next - p, "transaction length differs from bitcoinj's");
      assertArrayEquals(reference.txid(), txid, "txid differs from bitcoinj's");
      p = next;
    }
  }

  private record Parsed(byte[] txid, int length) {}

  /** bitcoinj's reading of the transaction at {@code from}, or null if it cannot parse it. */
  private static Parsed bitcoinj(byte[] plain, int from, int to) {
    ByteBuffer buf = ByteBuffer.wrap(plain, from, to - from);
    try {
      Transaction tx = Transaction.read(buf);
      return new Parsed(tx.getTxId().getReversedBytes(), buf.position() - from);
    } catch (RuntimeException e) { // BufferUnderflowException and bitcoinj's ProtocolException
      return null;
    }
  }

  /** The tx count a block starts with (0 if unreadable; the source then refuses the block). */
  private static long txCount(byte[] plain, Record r) {
    ByteBuffer buf =
        ByteBuffer.wrap(
            plain,
            (int) r.dataPos() + BlockFileReader.HEADER_BYTES,
            (int) r.size() - BlockFileReader.HEADER_BYTES);
    try {
      return Math.min(VarInt.read(buf).longValue() & 0xFFFF_FFFFL, Integer.MAX_VALUE);
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private static int compactSizeLength(byte first) {
    int b = first & 0xFF;
    return b < 253 ? 1 : b == 253 ? 3 : b == 254 ? 5 : 9;
  }

  private static Path tempDir() {
    try {
      Path dir = Files.createTempDirectory("blk-fuzz");
      dir.toFile().deleteOnExit();
      dir.resolve("blk00000.dat").toFile().deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
