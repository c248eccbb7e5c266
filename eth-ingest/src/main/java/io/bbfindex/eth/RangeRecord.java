package io.bbfindex.eth;

import io.bbfindex.filters.io.AtomicFileWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * bbf-index's own exact record of one range of blocks: every transaction hash with its block and
 * index, so a hash the filters say "maybe" to is answered without the node, whose lookup window
 * (geth: about a year) may no longer cover it.
 *
 * <p>File layout, big-endian:
 *
 * <pre>
 *   0   8  magic "BBFETXR1"
 *   8   8  first block number
 *   16  4  block count B
 *   20  4  transaction count T
 *   24  32 * B      block hashes, in block order
 *   ..  40 * T      entries sorted by hash (unsigned): hash (32), block offset in the range (4), index (4)
 *   ..  4  CRC32C of everything before
 * </pre>
 *
 * A lookup is a binary search over the mapped entries (log2 T reads). Written to a temporary file,
 * forced and renamed, like the filter files; loading checks the magic, the lengths and the CRC.
 */
final class RangeRecord {
  static final byte[] MAGIC = "BBFETXR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final int HEADER = 24;
  private static final int ENTRY = 40;

  private final Path file;
  private final ByteBuffer data;
  private final long firstBlock;
  private final int blocks;
  private final int txs;
  private final int entriesAt;

  private RangeRecord(Path file, ByteBuffer data, long firstBlock, int blocks, int txs) {
    this.file = file;
    this.data = data;
    this.firstBlock = firstBlock;
    this.blocks = blocks;
    this.txs = txs;
    this.entriesAt = HEADER + TxHash.BYTES * blocks;
  }

  /**
   * Writes the record of {@code range} (consecutive blocks) to {@code file} atomically.
   *
   * @throws IOException if writing fails; the target is then unchanged
   */
  static void write(Path file, List<BlockTxs> range) throws IOException {
    int txCount = range.stream().mapToInt(b -> b.txs().size()).sum();
    long size = (long) HEADER + (long) TxHash.BYTES * range.size() + (long) ENTRY * txCount + 4;
    if (size > Integer.MAX_VALUE) {
      throw new IOException(
          "range record of " + txCount + " transactions is over 2 GiB; use a smaller range");
    }
    byte[] out = new byte[(int) size];
    System.arraycopy(MAGIC, 0, out, 0, 8);
    Bytes.putLong(out, 8, range.getFirst().number());
    Bytes.putInt(out, 16, range.size());
    Bytes.putInt(out, 20, txCount);
    int pos = HEADER;
    for (BlockTxs b : range) {
      b.hash().copyTo(out, pos);
      pos += TxHash.BYTES;
    }
    int entriesAt = pos;
    for (int offset = 0; offset < range.size(); offset++) {
      List<TxHash> txs = range.get(offset).txs();
      for (int index = 0; index < txs.size(); index++) {
        txs.get(index).copyTo(out, pos);
        Bytes.putInt(out, pos + 32, offset);
        Bytes.putInt(out, pos + 36, index);
        pos += ENTRY;
      }
    }
    sortEntries(out, entriesAt, txCount);
    CRC32C crc = new CRC32C();
    crc.update(out, 0, out.length - 4);
    Bytes.putInt(out, out.length - 4, (int) crc.getValue());
    writeAtomically(file, out);
  }

  /** Sorts the 40-byte entries by their hash (unsigned), through an index array. */
  private static void sortEntries(byte[] out, int at, int count) {
    Integer[] order = new Integer[count];
    for (int i = 0; i < count; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        (x, y) ->
            Arrays.compareUnsigned(
                out,
                at + x * ENTRY,
                at + x * ENTRY + 32,
                out,
                at + y * ENTRY,
                at + y * ENTRY + 32));
    byte[] sorted = new byte[count * ENTRY];
    for (int i = 0; i < count; i++) {
      System.arraycopy(out, at + order[i] * ENTRY, sorted, i * ENTRY, ENTRY);
    }
    System.arraycopy(sorted, 0, out, at, sorted.length);
  }

  /** Writes {@code bytes} as {@code file} through the one atomic writer every store file uses. */
  static void writeAtomically(Path file, byte[] bytes) throws IOException {
    AtomicFileWriter.write(file, bytes);
  }

  /**
   * Maps and validates {@code file}.
   *
   * @throws IOException if it is missing, truncated, foreign or its checksum does not match
   */
  static RangeRecord load(Path file) throws IOException {
    MappedByteBuffer data;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < HEADER + 4 || size > Integer.MAX_VALUE) {
        throw new IOException(file + ": not a range record (size " + size + ")");
      }
      data = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
    }
    byte[] magic = new byte[8];
    data.get(0, magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException(file + ": not a range record (bad magic)");
    }
    long first = data.getLong(8);
    int blocks = data.getInt(16);
    int txs = data.getInt(20);
    long expected = (long) HEADER + (long) TxHash.BYTES * blocks + (long) ENTRY * txs + 4;
    if (blocks < 0 || txs < 0 || expected != data.capacity()) {
      throw new IOException(
          file
              + ": truncated or corrupt range record ("
              + data.capacity()
              + " bytes, header says "
              + expected
              + ")");
    }
    CRC32C crc = new CRC32C();
    crc.update(data.slice(0, data.capacity() - 4));
    if ((int) crc.getValue() != data.getInt(data.capacity() - 4)) {
      throw new IOException(file + ": range record checksum mismatch");
    }
    return new RangeRecord(file, data, first, blocks, txs);
  }

  long firstBlock() {
    return firstBlock;
  }

  int blockCount() {
    return blocks;
  }

  int txCount() {
    return txs;
  }

  Path file() {
    return file;
  }

  TxHash blockHash(int offset) {
    byte[] h = new byte[TxHash.BYTES];
    data.get(HEADER + offset * TxHash.BYTES, h);
    return TxHash.of(h, 0);
  }

  /** The last block's hash. */
  TxHash lastBlockHash() {
    return blockHash(blocks - 1);
  }

  /**
   * The location of {@code key[offset .. offset + 32)}, or empty when the range does not hold it.
   */
  Optional<EthTxLocation> find(byte[] key, int offset) {
    long k0 = Bytes.getLong(key, offset);
    long k1 = Bytes.getLong(key, offset + 8);
    long k2 = Bytes.getLong(key, offset + 16);
    long k3 = Bytes.getLong(key, offset + 24);
    int lo = 0;
    int hi = txs - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int at = entriesAt + mid * ENTRY;
      int c = Long.compareUnsigned(data.getLong(at), k0);
      if (c == 0) {
        c = Long.compareUnsigned(data.getLong(at + 8), k1);
      }
      if (c == 0) {
        c = Long.compareUnsigned(data.getLong(at + 16), k2);
      }
      if (c == 0) {
        c = Long.compareUnsigned(data.getLong(at + 24), k3);
      }
      if (c == 0) {
        int blockOffset = data.getInt(at + 32);
        return Optional.of(
            new EthTxLocation(
                firstBlock + blockOffset, blockHash(blockOffset), data.getInt(at + 36)));
      }
      if (c < 0) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return Optional.empty();
  }

  /** Hands every transaction hash to {@code sink} as 32 bytes in a reused array. */
  void forEachHash(Consumer<byte[]> sink) {
    byte[] key = new byte[TxHash.BYTES];
    for (int i = 0; i < txs; i++) {
      data.get(entriesAt + i * ENTRY, key);
      sink.accept(key);
    }
  }
}
