package io.bbfindex.ingest.txindex;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.records.TxRecordConsumer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.base.VarInt;

/**
 * The txids of a node, computed from its block data instead of read from its txindex: a hashed
 * txindex (Core >= 32) stores no txid, and a mixed one only those of its older blocks.
 *
 * <p>For every blk file that holds blocks with data ({@code 'b'} records with {@code HAVE_DATA},
 * stale blocks included, as their txindex rows are kept), the whole file is read once (the XOR of
 * {@code blocks/xor.dat} removed), each block the block index points at is checked (magic, size,
 * header hash = the block's hash, transaction count = its nTx) and every transaction is hashed by
 * {@link TxidHasher} (txid = SHA-256d of the serialization without witness; no transaction objects,
 * so the rate is close to SHA-256's own). Files are hashed by {@code threads} workers; the calling
 * thread hands the txids to the consumer in file order, so the consumer needs no locking. A
 * consumer that is a {@link BlockFileSelection} gets only the files it wants; the others are
 * reported by count.
 */
public final class BlockDataTxSource {

  private final BlockFileReader reader;
  private final BlocksXorKey xor;
  private final int threads;

  /**
   * File buffers, at most one per hashing worker, reused from file to file and from call to call
   * while this source lives (a blk file is up to 128 MiB: allocating and zeroing one per file cost
   * as much as hashing it).
   */
  private final ConcurrentLinkedQueue<byte[]> buffers = new ConcurrentLinkedQueue<>();

  private static final int READ_CHUNK = 256 << 10;

  /** The smallest serialized transaction: version, two empty counts, lock time. */
  private static final int MIN_TX_BYTES = 10;

  /** Blocks with data, by file, in position order. */
  private final Map<Integer, List<BlockInfo>> blocksByFile = new TreeMap<>();

  /**
   * @param blocks every block of the block index (those without data are ignored)
   * @param reader names the blk files and knows the network magic
   * @param xor the key of {@code blocks/xor.dat}
   * @param threads hashing workers (>= 1)
   */
  public BlockDataTxSource(
      Collection<BlockInfo> blocks, BlockFileReader reader, BlocksXorKey xor, int threads) {
    this.reader = Objects.requireNonNull(reader, "reader");
    this.xor = Objects.requireNonNull(xor, "xor");
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1: " + threads);
    }
    this.threads = threads;
    for (BlockInfo b : blocks) {
      if (BlockStatus.hasData(b.status()) && b.dataPos() >= 0 && b.file() >= 0) {
        blocksByFile.computeIfAbsent(b.file(), f -> new ArrayList<>()).add(b);
      }
    }
    blocksByFile.values().forEach(l -> l.sort(Comparator.comparingLong(BlockInfo::dataPos)));
  }

  /**
   * The txids of one blk file, in file order: {@code txids} holds 32 bytes (internal order) each.
   */
  record FileTxids(int file, byte[] txids, long[] dataPos, long[] txOffsets) {
    int count() {
      return dataPos.length;
    }
  }

  /**
   * Calls {@code consumer} for every transaction of every block with data whose txid's first byte
   * (internal order) is in {@code [fromFirstByte, toFirstByte)}; {@code txOffset} as in a {@code
   * 't'} row (after the 80-byte header). Each call reads the block files again: call it once with
   * {@code [0, 256)}.
   *
   * @throws IndexReadException if a blk file cannot be read or does not hold what the block index
   *     says
   */
  public void forEachTx(int fromFirstByte, int toFirstByte, TxRecordConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    BlockFileSelection selection = consumer instanceof BlockFileSelection s ? s : null;
    List<Integer> files = new ArrayList<>();
    for (Map.Entry<Integer, List<BlockInfo>> e : blocksByFile.entrySet()) {
      if (selection == null || selection.wantsTxids(e.getKey())) {
        files.add(e.getKey());
      } else {
        selection.skipFile(
            e.getKey(),
            e.getValue().stream().mapToLong(b -> Integer.toUnsignedLong(b.txCount())).sum());
      }
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "blk-txids");
              t.setDaemon(true);
              return t;
            });
    try {
      Deque<Future<FileTxids>> inFlight = new ArrayDeque<>();
      int next = 0;
      while (next < files.size() || !inFlight.isEmpty()) {
        // bounded read-ahead: a blk file is up to 128 MiB in memory
        while (next < files.size() && inFlight.size() < threads + 1) {
          int file = files.get(next++);
          inFlight.add(pool.submit(() -> hashFile(file)));
        }
        FileTxids f = inFlight.poll().get();
        byte[] txids = f.txids();
        for (int i = 0; i < f.count(); i++) {
          int first = txids[i * 32] & 0xFF;
          if (first >= fromFirstByte && first < toFirstByte) {
            consumer.accept(txids, i * 32, f.file(), f.dataPos()[i], f.txOffsets()[i]);
          }
        }
      }
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof UncheckedIOException u) {
        throw new IndexReadException(
            "computing txids from block data failed: " + u.getCause().getMessage(), u.getCause());
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IndexReadException(
          "computing txids from block data was interrupted", new InterruptedIOException());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Reads blk{file}.dat whole and hashes every transaction of its indexed blocks. */
  FileTxids hashFile(int file) {
    List<BlockInfo> blocks = blocksByFile.get(file);
    Plain plain = null;
    try {
      plain = readPlain(file, blocks.getLast(), buffers.poll());
      long total = blocks.stream().mapToLong(b -> Integer.toUnsignedLong(b.txCount())).sum();
      // The block index's nTx sizes the arrays below: check it against the bytes first, so a
      // corrupt count is an error, not a 2 GiB allocation (each block's own count is checked
      // against its data by hashBlock).
      if (total > plain.length() / MIN_TX_BYTES) {
        throw new CorruptRecordException(
            reader.blockFile(file)
                + ": the block index claims "
                + total
                + " transactions in its "
                + blocks.size()
                + " block(s), more than its "
                + plain.length()
                + " bytes can hold");
      }
      byte[] txids = new byte[Math.toIntExact(total * 32)];
      long[] positions = new long[(int) total];
      long[] offsets = new long[(int) total];
      int n = 0;
      TxidHasher hasher = new TxidHasher();
      for (BlockInfo b : blocks) {
        n = hashBlock(hasher, file, plain.data(), plain.length(), b, txids, positions, offsets, n);
      }
      return new FileTxids(file, txids, positions, offsets);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (plain != null) {
        buffers.add(plain.data());
      }
    }
  }

  /** A blk file's bytes, XOR removed: {@code data[0 .. length)} (the buffer may be longer). */
  private record Plain(byte[] data, int length) {}

  private int hashBlock(
      TxidHasher hasher,
      int file,
      byte[] data,
      int length,
      BlockInfo b,
      byte[] txids,
      long[] positions,
      long[] offsets,
      int n)
      throws CorruptRecordException {
    String where = reader.blockFile(file) + " block at " + b.dataPos();
    if (b.dataPos() < BlockFileReader.PREFIX_BYTES
        || b.dataPos() > length - BlockFileReader.HEADER_BYTES) {
      throw new CorruptRecordException(
          where + ": position outside the file's " + length + " bytes read");
    }
    int pos = (int) b.dataPos();
    byte[] magic = reader.magic();
    if (magic != null && !Arrays.equals(data, pos - 8, pos - 4, magic, 0, 4)) {
      throw new CorruptRecordException(
          where
              + ": no block record (magic "
              + java.util.HexFormat.of().formatHex(Arrays.copyOfRange(data, pos - 8, pos - 4))
              + ")"
              + (xor.active() ? "" : "; is blocks/xor.dat missing?"));
    }
    long size = io.bbfindex.ingest.encoding.LittleEndian.uint32(data, pos - 4);
    if (size < BlockFileReader.HEADER_BYTES + 1
        || size > BlockFileReader.MAX_BLOCK_RECORD
        || pos + size > length) {
      throw new CorruptRecordException(where + ": block record size " + size + " is out of bounds");
    }
    if (!Arrays.equals(Sha256Hash.hashTwice(data, pos, BlockFileReader.HEADER_BYTES), b.hash())) {
      throw new CorruptRecordException(
          where + ": the header there does not hash to block " + b.hashHex());
    }
    int headerEnd = pos + BlockFileReader.HEADER_BYTES;
    int blockEnd = (int) (pos + size);
    ByteBuffer buf = ByteBuffer.wrap(data, headerEnd, blockEnd - headerEnd);
    long count;
    try {
      count = VarInt.read(buf).longValue();
    } catch (BufferUnderflowException | IllegalArgumentException | ArithmeticException e) {
      throw new CorruptRecordException(where + ": unreadable transaction count: " + e, e);
    }
    if (count != Integer.toUnsignedLong(b.txCount())) {
      throw new CorruptRecordException(
          where + ": " + count + " transactions, the block index says " + b.txCount());
    }
    int p = buf.position();
    for (long i = 0; i < count; i++) {
      offsets[n] = (long) p - headerEnd;
      try {
        p = hasher.hash(data, p, blockEnd, txids, n * 32);
      } catch (CorruptRecordException e) {
        throw new CorruptRecordException(
            where + " tx offset " + offsets[n] + ": " + e.getMessage(), e);
      }
      positions[n] = b.dataPos();
      n++;
    }
    return n;
  }

  /**
   * Reads the file up to the end of its last indexed block into {@code buffer} (or a larger new
   * one), XOR removed. Read and un-XORed in {@link #READ_CHUNK} slices: a read into a heap array
   * goes through a temporary direct buffer of the read's size, which for a whole file is a fresh
   * 128 MiB allocation every time (the workers are new threads each call); a mapping instead costs
   * a page fault every 4 KiB.
   *
   * @param buffer a pooled buffer to read into, used if large enough (may be null)
   */
  private Plain readPlain(int file, BlockInfo last, byte[] buffer) throws IOException {
    try (FileChannel ch = FileChannel.open(reader.blockFile(file), StandardOpenOption.READ)) {
      long end = Math.min(ch.size(), last.dataPos() + BlockFileReader.MAX_BLOCK_RECORD);
      byte[] prefix = new byte[8];
      ByteBuffer pb = ByteBuffer.wrap(prefix);
      // the last block's own size bounds the read (the file may be padded to 16 MiB)
      if (last.dataPos() >= 8 && ch.read(pb, last.dataPos() - 8) == 8) {
        xor.apply(prefix, 0, 8, last.dataPos() - 8);
        end =
            Math.min(
                ch.size(),
                last.dataPos() + io.bbfindex.ingest.encoding.LittleEndian.uint32(prefix, 4));
      }
      int length = Math.toIntExact(end);
      byte[] data = buffer != null && buffer.length >= length ? buffer : new byte[length];
      for (int p = 0; p < length; ) {
        int r = ch.read(ByteBuffer.wrap(data, p, Math.min(READ_CHUNK, length - p)), p);
        if (r < 0) {
          throw new CorruptRecordException(
              reader.blockFile(file) + " ended at " + p + " bytes while read, expected " + length);
        }
        // each chunk while it is still in the cache the read left it in, not the whole file after
        // (a second pass through memory)
        xor.apply(data, p, r, p);
        p += r;
      }
      return new Plain(data, length);
    }
  }
}
