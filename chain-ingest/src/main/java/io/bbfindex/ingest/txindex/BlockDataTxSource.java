package io.bbfindex.ingest.txindex;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.HashKeys;
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
import org.jspecify.annotations.Nullable;

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

  /**
   * The per-transaction arrays of files the consumer is done with, reused likewise: 48 bytes a
   * transaction, 13 MB for a mainnet blk file, which a fresh allocation zeroes first (in the JFR
   * and perf profiles of 2026-11-28, zeroing new arrays was 14 % of a hashing worker's time).
   */
  private final ConcurrentLinkedQueue<FileTxids> spent = new ConcurrentLinkedQueue<>();

  private static final int READ_CHUNK = 256 << 10;

  /**
   * Buffers are allocated in steps of Core's BLOCKFILE_CHUNK_SIZE (16 MiB, the steps a blk file is
   * preallocated in): blk files end a few KiB apart, and a buffer sized to one file exactly was too
   * small for the next one about every other file, a new 128 MiB array each time.
   */
  private static final int BUFFER_STEP = 16 << 20;

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
   * The arrays may be longer than {@code count} (reused from an earlier file).
   */
  record FileTxids(int file, int count, byte[] txids, long[] dataPos, long[] txOffsets) {

    /**
     * Arrays for {@code count} transactions of {@code file}: those of {@code spare} if they are
     * long enough, else new ones with a quarter more room (the next file may hold a few more).
     */
    static FileTxids reuse(FileTxids spare, int file, int count) {
      if (spare != null && spare.dataPos.length >= count) {
        return new FileTxids(file, count, spare.txids, spare.dataPos, spare.txOffsets);
      }
      int room = count + count / 4;
      return new FileTxids(file, count, new byte[room * 32], new long[room], new long[room]);
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
        FileTxids f = inFlight.remove().get();
        byte[] txids = f.txids();
        for (int i = 0; i < f.count(); i++) {
          int first = txids[i * 32] & 0xFF;
          if (first >= fromFirstByte && first < toFirstByte) {
            consumer.accept(txids, i * 32, f.file(), f.dataPos()[i], f.txOffsets()[i]);
          }
        }
        spent.add(f);
      }
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof UncheckedIOException u && u.getCause() instanceof IOException io) {
        throw new IndexReadException(
            "computing txids from block data failed: " + io.getMessage(), io);
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

  /**
   * Reads blk{file}.dat and hashes every transaction of its indexed blocks, each block as soon as
   * it has been read (while its bytes are still in the cache the read left them in).
   */
  FileTxids hashFile(int file) {
    List<BlockInfo> blocks = blocksByFile.get(file);
    if (blocks == null) {
      throw new IllegalArgumentException("blk file " + file + " holds no indexed block");
    }
    try (PlainFile plain = PlainFile.open(reader, xor, file, blocks.getLast(), buffers.poll())) {
      try {
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
        FileTxids out = FileTxids.reuse(spent.poll(), file, (int) total);
        int n = 0;
        TxidHasher hasher = new TxidHasher();
        for (BlockInfo b : blocks) {
          n = hashBlock(hasher, plain, b, out, n);
        }
        return out;
      } finally {
        buffers.add(plain.data());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private int hashBlock(TxidHasher hasher, PlainFile plain, BlockInfo b, FileTxids out, int n)
      throws IOException {
    String where = BlockFileReader.displayName(plain.file()) + " block at " + b.dataPos();
    int length = plain.length();
    if (b.dataPos() < BlockFileReader.PREFIX_BYTES
        || b.dataPos() > length - BlockFileReader.HEADER_BYTES) {
      throw new CorruptRecordException(
          where + ": position outside the file's " + length + " bytes read");
    }
    int pos = (int) b.dataPos();
    plain.readTo(pos + BlockFileReader.HEADER_BYTES);
    byte[] data = plain.data();
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
    plain.readTo((int) (pos + size));
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
    if (count == 0) { // every block has its coinbase: no merkle root folds from nothing
      throw new CorruptRecordException(where + ": a block record without transactions");
    }
    int p = buf.position();
    byte[] txids = out.txids();
    long[] offsets = out.txOffsets();
    long[] positions = out.dataPos();
    for (long i = 0; i < count; i++) {
      offsets[n] = (long) p - headerEnd;
      try {
        // the buffer is this source's own copy, read once: the hasher may rearrange it
        p = hasher.hashOverwritingWitness(data, p, blockEnd, txids, n * 32);
      } catch (CorruptRecordException e) {
        throw new CorruptRecordException(
            where + " tx offset " + offsets[n] + ": " + e.getMessage(), e);
      }
      positions[n] = b.dataPos();
      n++;
    }
    checkMerkleRoot(where, data, pos, hasher.merkleRoot(txids, n - (int) count, (int) count));
    return n;
  }

  /**
   * A transaction whose stored bytes were damaged still parses, and would hash to a txid no one
   * asks for: the filters would then answer a false "absent" for the real one. So the txids of a
   * block must fold to its header's merkle root (header bytes 36-68) before any is handed on; a
   * block that does not is damage the build refuses, naming it.
   */
  private static void checkMerkleRoot(String where, byte[] data, int header, byte[] root)
      throws CorruptRecordException {
    if (!Arrays.equals(data, header + 36, header + 68, root, 0, 32)) {
      throw new CorruptRecordException(
          where
              + ": its transactions fold to the merkle root "
              + HashKeys.toDisplayHex(root)
              + ", the header says "
              + HashKeys.toDisplayHex(Arrays.copyOfRange(data, header + 36, header + 68))
              + ": the stored transactions are damaged (restore the file from the node, or"
              + " let the node re-download the block)");
    }
  }

  /**
   * A blk file read into a buffer as far as its blocks are hashed, XOR removed: {@code data[0 ..
   * length)} once read in full (the buffer may be longer). Read and un-XORed in {@link #READ_CHUNK}
   * slices: a read into a heap array goes through a temporary direct buffer of the read's size,
   * which for a whole file is a fresh 128 MiB allocation every time (the workers are new threads
   * each call); a mapping instead costs a page fault every 4 KiB. Each slice is un-XORed while it
   * is in the cache the read left it in, and each block is hashed right after its last slice is
   * read (not the whole file after: a second pass through memory).
   */
  private static final class PlainFile implements AutoCloseable {

    private final BlockFileReader reader;
    private final BlocksXorKey xor;
    private final int file;
    private final FileChannel channel;
    private final byte[] data;
    private final int length;
    private int read;

    private PlainFile(
        BlockFileReader reader,
        BlocksXorKey xor,
        int file,
        FileChannel channel,
        byte[] data,
        int length) {
      this.reader = reader;
      this.xor = xor;
      this.file = file;
      this.channel = channel;
      this.data = data;
      this.length = length;
    }

    /**
     * Opens blk{file}.dat, to be read up to the end of its last indexed block, into {@code buffer}
     * if it is large enough, else into a new one.
     *
     * @param buffer a pooled buffer (may be null)
     */
    static PlainFile open(
        BlockFileReader reader,
        BlocksXorKey xor,
        int file,
        BlockInfo last,
        byte @Nullable [] buffer)
        throws IOException {
      FileChannel ch = FileChannel.open(reader.blockFile(file), StandardOpenOption.READ);
      try {
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
        byte[] data =
            buffer != null && buffer.length >= length
                ? buffer
                : new byte[(int) Math.min(Integer.MAX_VALUE - 8, ceilStep(length))];
        return new PlainFile(reader, xor, file, ch, data, length);
      } catch (IOException | RuntimeException e) {
        ch.close();
        throw e;
      }
    }

    private static long ceilStep(long length) {
      return (length + BUFFER_STEP - 1) / BUFFER_STEP * BUFFER_STEP;
    }

    /** Reads on until at least {@code data[0 .. position)} holds the file's bytes. */
    void readTo(int position) throws IOException {
      while (read < position) {
        int r =
            channel.read(ByteBuffer.wrap(data, read, Math.min(READ_CHUNK, length - read)), read);
        if (r < 0) {
          throw new CorruptRecordException(
              reader.blockFile(file)
                  + " ended at "
                  + read
                  + " bytes while read, expected "
                  + length);
        }
        xor.apply(data, read, r, read);
        read += r;
      }
    }

    int file() {
      return file;
    }

    byte[] data() {
      return data;
    }

    int length() {
      return length;
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
