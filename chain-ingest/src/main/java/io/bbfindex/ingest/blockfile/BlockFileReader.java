package io.bbfindex.ingest.blockfile;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.LittleEndian;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * Reads blocks and transactions from Core's {@code blk%05d.dat} files, never trusting a size.
 *
 * <p>Framing ({@code WriteBlock}): {@code magic(4) | uint32 LE size | header(80) | CompactSize tx
 * count | transactions (with witness)}; the index positions (nDataPos, CDiskTxPos.nPos) point just
 * after the 8-byte prefix. Every read checks, before allocating: the position lies inside the file,
 * the magic matches the network's, {@code 81 <= size <= MAX_BLOCK_RECORD} and the record fits in
 * the file. Then the header is hashed and, for a transaction, the bytes at {@code dataPos + 80 +
 * txOffset} are parsed by bitcoinj and their txid compared with the one asked for: Core's own check
 * in {@code TxIndex::FindTx}.
 *
 * <p>Thread-safe: one read-only channel per file, positional reads only.
 */
public final class BlockFileReader implements AutoCloseable {

  /** Core's MAX_SIZE, the bound ReadRawBlock puts on a record's size field (32 MiB). */
  public static final long MAX_BLOCK_RECORD = 0x0200_0000L;

  /** Prefix bytes before each block: magic + size. */
  public static final int PREFIX_BYTES = 8;

  public static final int HEADER_BYTES = 80;

  /**
   * First read of a transaction. Nearly all transactions are smaller, so one small read does;
   * larger ones are re-read with the rest of the block record (bounded by the size field).
   */
  public static final int TX_FIRST_READ = 4096;

  /**
   * Message starts of the networks Core ships (mainnet, testnet3, testnet4, regtest, default
   * signet).
   */
  static final List<byte[]> KNOWN_MAGICS =
      List.of(
          HexFormat.of().parseHex("f9beb4d9"),
          HexFormat.of().parseHex("0b110907"),
          HexFormat.of().parseHex("1c163f28"),
          HexFormat.of().parseHex("fabfb5da"),
          HexFormat.of().parseHex("0a03cf40"));

  private final Path blocksDir;
  private final BlocksXorKey xor;
  private volatile byte @Nullable [] magic;
  private final Map<Integer, FileChannel> channels = new ConcurrentHashMap<>();
  // every read names its file for error messages: formatted once per file, not once per read
  private final Map<Integer, Path> paths = new ConcurrentHashMap<>();

  /**
   * @param magic the network's message start, or {@code null} to accept any of {@link
   *     #KNOWN_MAGICS} and then only the first one seen
   */
  public BlockFileReader(Path blocksDir, BlocksXorKey xor, byte @Nullable [] magic) {
    this.blocksDir = blocksDir;
    this.xor = xor;
    this.magic = magic == null ? null : magic.clone();
  }

  public Path blockFile(int file) {
    return paths.computeIfAbsent(
        file, f -> blocksDir.resolve(String.format(Locale.ROOT, "blk%05d.dat", f)));
  }

  /** The magic this reader checks (learnt from the first record read if not given). */
  public byte @Nullable [] magic() {
    byte[] m = magic;
    return m == null ? null : m.clone();
  }

  /**
   * Reads and checks the prefix of the block at {@code dataPos} and returns its 80-byte header.
   *
   * @throws CorruptRecordException if the prefix or position is wrong; names the file and offset
   */
  public byte[] readHeader(int file, long dataPos) throws IOException {
    return readFramed(file, dataPos).header;
  }

  /**
   * Reads the transaction at {@code dataPos + 80 + txOffset} of blk{file}.dat and checks that the
   * block header there hashes to {@code expectedBlockHash} (if not null) and that the transaction's
   * txid is {@code expectedTxid} (if not null: a hashed txindex row only names a candidate, whose
   * txid its caller compares).
   *
   * @throws CorruptRecordException on any framing, bound, parse, header-hash or txid mismatch
   * @throws NoSuchFileException if the block file is missing (pruned, or wrong blocks dir)
   */
  public Transaction readTransaction(
      int file,
      long dataPos,
      long txOffset,
      byte @Nullable [] expectedTxid,
      byte @Nullable [] expectedBlockHash)
      throws IOException {
    Framed block = readFramed(file, dataPos);
    String where = where(file, dataPos);
    checkHeader(block, where, expectedBlockHash);
    Transaction tx = readInBlock(block, file, dataPos, txOffset).tx();
    byte[] txid = tx.getTxId().getReversedBytes();
    if (expectedTxid != null && !Arrays.equals(txid, expectedTxid)) {
      throw new CorruptRecordException(
          where
              + " tx offset "
              + txOffset
              + ": txid mismatch, the bytes there hash to "
              + toDisplayHex(txid)
              + ", expected "
              + toDisplayHex(expectedTxid));
    }
    return tx;
  }

  /**
   * The stored bytes from the transaction at {@code dataPos + 80 + txOffset} of blk{file}.dat on,
   * up to the end of its block record or {@code maxBytes}, whichever comes first, XOR removed and
   * not parsed: for a caller that hashes the transaction itself ({@code TxidHasher}) and reads
   * again, to the block's end, when the transaction runs past {@code maxBytes}. The block header
   * there is checked against {@code expectedBlockHash} (if not null).
   *
   * @throws CorruptRecordException on any framing, bound or header-hash mismatch
   */
  public TxRegion readTxRegion(
      int file, long dataPos, long txOffset, int maxBytes, byte[] expectedBlockHash)
      throws IOException {
    Framed block = readFramed(file, dataPos);
    String where = where(file, dataPos);
    checkHeader(block, where, expectedBlockHash);
    long txStart = txStart(block, dataPos, txOffset, where);
    long left = dataPos + block.size - txStart;
    byte[] bytes = new byte[(int) Math.min(left, maxBytes)];
    readPlain(block.channel, bytes, txStart, where);
    return new TxRegion(bytes, bytes.length == left, where);
  }

  /**
   * Bytes from a transaction's start on.
   *
   * @param toBlockEnd whether they run to the end of the block record (no more to read)
   * @param where the file and block position, for error messages
   */
  public record TxRegion(byte[] bytes, boolean toBlockEnd, String where) {}

  private static void checkHeader(Framed block, String where, byte @Nullable [] expectedBlockHash)
      throws CorruptRecordException {
    if (expectedBlockHash != null
        && !Arrays.equals(Sha256Hash.hashTwice(block.header), expectedBlockHash)) {
      throw new CorruptRecordException(
          where
              + ": the header there hashes to "
              + toDisplayHex(Sha256Hash.hashTwice(block.header))
              + ", not to the expected block "
              + toDisplayHex(expectedBlockHash));
    }
  }

  /** Where the transaction at {@code txOffset} starts, checked to be inside the block record. */
  private static long txStart(Framed block, long dataPos, long txOffset, String where)
      throws CorruptRecordException {
    long txStart = dataPos + HEADER_BYTES + txOffset;
    // txOffset >= 1: the tx-count CompactSize comes first. A transaction is at least 10 bytes.
    if (txOffset < 1 || txStart >= dataPos + block.size) {
      throw new CorruptRecordException(
          where
              + ": tx offset "
              + txOffset
              + " is outside the block record of "
              + block.size
              + " bytes");
    }
    return txStart;
  }

  /**
   * The transaction at {@code dataPos + 80 + txOffset} of blk{file}.dat exactly as stored there
   * (witness included, XOR removed), with its bitcoinj parse; the txid is NOT compared with
   * anything, so that a caller can re-hash the bytes itself and name the mismatch.
   *
   * @throws CorruptRecordException on any framing, bound or parse error; names file and position
   */
  public RawTransaction readRawTransaction(int file, long dataPos, long txOffset)
      throws IOException {
    return readInBlock(readFramed(file, dataPos), file, dataPos, txOffset);
  }

  /**
   * The whole block record at {@code dataPos} of blk{file}.dat (header, tx count, transactions with
   * witnesses), XOR removed; framing checked as for any read.
   */
  public byte[] readBlock(int file, long dataPos) throws IOException {
    Framed block = readFramed(file, dataPos);
    byte[] bytes = new byte[(int) block.size]; // size <= MAX_BLOCK_RECORD, checked by readFramed
    readPlain(block.channel, bytes, dataPos, where(file, dataPos));
    return bytes;
  }

  /**
   * A transaction's stored bytes and their parse.
   *
   * @param bytes the serialization as stored (with witness when the transaction has one)
   * @param where the file and block position, for error messages
   */
  public record RawTransaction(byte[] bytes, Transaction tx, String where) {}

  private RawTransaction readInBlock(Framed block, int file, long dataPos, long txOffset)
      throws IOException {
    String where = where(file, dataPos);
    long txStart = txStart(block, dataPos, txOffset, where);
    long left = dataPos + block.size - txStart;
    int first = (int) Math.min(left, TX_FIRST_READ);
    Optional<RawTransaction> tx =
        parse(block.channel, txStart, first, where, txOffset, first == left);
    if (tx.isEmpty()) {
      tx = parse(block.channel, txStart, (int) left, where, txOffset, true);
    }
    return tx.orElseThrow(); // a whole read gives the transaction or throws
  }

  /** Empty means "ran out of bytes, but more are available" (only when {@code !whole}). */
  private Optional<RawTransaction> parse(
      FileChannel ch, long pos, int len, String where, long txOffset, boolean whole)
      throws IOException {
    byte[] bytes = new byte[len]; // len <= record size <= MAX_BLOCK_RECORD, checked by readFramed
    readPlain(ch, bytes, pos, where);
    try {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      Transaction tx = Transaction.read(buf);
      return Optional.of(new RawTransaction(Arrays.copyOf(bytes, buf.position()), tx, where));
    } catch (BufferUnderflowException e) {
      if (!whole) {
        return Optional.empty();
      }
      throw new CorruptRecordException(
          where + " tx offset " + txOffset + ": transaction runs past the block record", e);
    } catch (RuntimeException e) {
      // bitcoinj's ProtocolException and the arithmetic/argument checks of its parsers
      throw new CorruptRecordException(
          where + " tx offset " + txOffset + ": unparseable transaction: " + e, e);
    }
  }

  /**
   * Scans the framed records of blk{file}.dat from the start, in file order. Stops at the end of
   * the file or at a zero magic: the unwritten, preallocated tail of the file Core is appending to
   * (zeros on disk; with an XOR key they read back as the key pattern, so the raw bytes are
   * tested). Any other magic, or a size that is out of bounds, is corruption.
   */
  public void scan(int file, BlockRecordVisitor visitor) throws IOException {
    FileChannel ch = channel(file);
    long fileSize = ch.size();
    long pos = 0;
    byte[] prefix = new byte[PREFIX_BYTES + HEADER_BYTES];
    while (pos + PREFIX_BYTES <= fileSize) {
      int n = (int) Math.min(prefix.length, fileSize - pos);
      readRaw(ch, prefix, 0, n, pos, where(file, pos + PREFIX_BYTES));
      if (isZero(prefix, 0, 4)) {
        return; // raw zeros: the preallocated tail (tested before de-obfuscation, see above)
      }
      xor.apply(prefix, 0, n, pos);
      long dataPos = pos + PREFIX_BYTES;
      long size = checkPrefix(prefix, file, dataPos, fileSize);
      if (!visitor.visit(
          dataPos, size, Arrays.copyOfRange(prefix, PREFIX_BYTES, PREFIX_BYTES + HEADER_BYTES))) {
        return;
      }
      pos = dataPos + size;
    }
  }

  private record Framed(FileChannel channel, long size, byte[] header) {}

  private Framed readFramed(int file, long dataPos) throws IOException {
    FileChannel ch = channel(file);
    long fileSize = ch.size();
    String where = where(file, dataPos);
    if (dataPos < PREFIX_BYTES || dataPos > fileSize - HEADER_BYTES) {
      throw new CorruptRecordException(
          where + ": position outside the file's " + fileSize + " bytes");
    }
    byte[] buf = new byte[PREFIX_BYTES + HEADER_BYTES];
    readPlain(ch, buf, dataPos - PREFIX_BYTES, where);
    long size = checkPrefix(buf, file, dataPos, fileSize);
    return new Framed(ch, size, Arrays.copyOfRange(buf, PREFIX_BYTES, buf.length));
  }

  /** De-obfuscates nothing; {@code prefix} must already be plain. Returns the checked size. */
  private long checkPrefix(byte[] prefix, int file, long dataPos, long fileSize)
      throws CorruptRecordException {
    String where = where(file, dataPos);
    byte[] m = Arrays.copyOf(prefix, 4);
    byte[] expected = magic;
    if (expected == null) {
      if (KNOWN_MAGICS.stream().noneMatch(k -> Arrays.equals(k, m))) {
        throw new CorruptRecordException(
            where
                + ": magic "
                + HexFormat.of().formatHex(m)
                + " is no known network's"
                + xorHint());
      }
      magic = m;
    } else if (!Arrays.equals(expected, m)) {
      throw new CorruptRecordException(
          where
              + ": magic "
              + HexFormat.of().formatHex(m)
              + " differs from the network's "
              + HexFormat.of().formatHex(expected)
              + xorHint());
    }
    long size = LittleEndian.uint32(prefix, 4);
    if (size < HEADER_BYTES + 1 || size > MAX_BLOCK_RECORD) {
      throw new CorruptRecordException(
          where
              + ": block record size "
              + size
              + " is out of bounds [81, "
              + MAX_BLOCK_RECORD
              + "]");
    }
    if (size > fileSize - dataPos) {
      throw new CorruptRecordException(
          where
              + ": block record of "
              + size
              + " bytes runs past the end of the file ("
              + fileSize
              + " bytes)");
    }
    return size;
  }

  /** Reads {@code dst.length} bytes at {@code filePos} and removes the XOR obfuscation. */
  private String xorHint() {
    return xor.active()
        ? ""
        : " (block files of Core >= 28 are XORed with the key in blocks/xor.dat: is it missing?)";
  }

  private void readPlain(FileChannel ch, byte[] dst, long filePos, String where)
      throws IOException {
    readRaw(ch, dst, 0, dst.length, filePos, where);
    xor.apply(dst, 0, dst.length, filePos);
  }

  private static void readRaw(
      FileChannel ch, byte[] dst, int off, int len, long filePos, String where) throws IOException {
    ByteBuffer bb = ByteBuffer.wrap(dst, off, len);
    long p = filePos;
    while (bb.hasRemaining()) {
      int r = ch.read(bb, p);
      if (r < 0) {
        throw new CorruptRecordException(
            where + ": file ends at " + p + " while reading " + len + " bytes");
      }
      p += r;
    }
  }

  private FileChannel channel(int file) throws IOException {
    FileChannel ch = channels.get(file);
    if (ch != null) {
      return ch;
    }
    if (file < 0) {
      throw new CorruptRecordException("block file number " + file + " is negative");
    }
    FileChannel opened = FileChannel.open(blockFile(file), StandardOpenOption.READ);
    FileChannel raced = channels.putIfAbsent(file, opened);
    if (raced != null) {
      opened.close();
      return raced;
    }
    return opened;
  }

  private String where(int file, long dataPos) {
    return displayName(file) + " block at " + dataPos;
  }

  /**
   * How messages name {@code blk{file}.dat}: relative to the data directory ({@code
   * blocks/blk00042.dat}), since they reach HTTP error bodies, which never show a local path.
   */
  public static String displayName(int file) {
    return String.format(Locale.ROOT, "blocks/blk%05d.dat", file);
  }

  private static boolean isZero(byte[] b, int off, int len) {
    for (int i = off; i < off + len; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (FileChannel ch : channels.values()) {
      try {
        ch.close();
      } catch (IOException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    channels.clear();
    if (first != null) {
      throw first;
    }
  }
}
