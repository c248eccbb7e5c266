package io.bbfindex.benchmarks.ingest;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.LittleEndian;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.filterbuild.TxFilterPass;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.txindex.TxidHasher;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * Where the block-data ingest's time goes, one phase at a time on one thread over the same blk
 * files, in CPU nanoseconds a transaction (best of a few passes): reading the files in the source's
 * 256 KiB slices and removing the XOR of each while it is in the cache, walking and hashing every
 * transaction (txid = SHA-256d of the serialization without witness, by the product's {@link
 * TxidHasher}), inserting the txids into a per-file filter and the summary ({@link TxFilterPass});
 * and, for scale, JDK SHA-256 over the same bytes. Beside them, what the data itself allows: the
 * SHA-256 blocks a txid costs (its serialization without witness plus 9 bytes of padding, in
 * 64-byte blocks, plus one block for the second hash) against the blocks of SHA-256 over all the
 * blk bytes.
 */
final class BlkIngestPhases {

  /**
   * CPU ns a transaction of each phase, and the shape of the data.
   *
   * @param bytesPerTx blk bytes a transaction (headers and witnesses included)
   * @param hashedBytesPerTx bytes of the serialization without witness a transaction
   * @param txidBlocksPerTx SHA-256 blocks a txid (both hashes, padding included)
   */
  record Result(
      double bytesPerTx,
      double hashedBytesPerTx,
      double txidBlocksPerTx,
      double readNs,
      double hashNs,
      double insertNs,
      double sha256Ns) {

    /** 64-byte blocks of SHA-256 over the blk bytes, a transaction (the limit's work). */
    double bulkBlocksPerTx() {
      return bytesPerTx / 64;
    }

    /** The ratio's bound if every SHA-256 block cost the same and nothing else cost anything. */
    double blockCountCeiling() {
      return bulkBlocksPerTx() / txidBlocksPerTx;
    }

    /** The ratio one thread would reach doing the phases back to back. */
    double oneThreadRatio() {
      return sha256Ns / (readNs + hashNs + insertNs);
    }
  }

  private static final int READ_SLICE = 256 << 10;

  private BlkIngestPhases() {}

  /**
   * Measures each phase {@code passes} times over {@code raw} (the blk files as stored, XORed).
   *
   * @param blocks every block, with its file and position
   * @throws IOException if a file cannot be read or a block does not parse
   */
  static Result measure(
      Path blocksDir,
      byte[][] raw,
      BlocksXorKey xor,
      List<BlockInfo> blocks,
      long[] txPerFile,
      long transactions,
      int passes)
      throws IOException {
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    long blkBytes = 0;
    int largest = 0;
    for (byte[] f : raw) {
      blkBytes += f.length;
      largest = Math.max(largest, f.length);
    }
    byte[] buffer = new byte[largest];
    byte[][] plain = new byte[raw.length][];
    byte[] txids = new byte[Math.toIntExact(transactions * 32)];
    long[] best = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
    long hashedBytes = 0;
    long txidBlocks = 0;
    MessageDigest sha256 = sha256();
    for (int pass = 0; pass < passes; pass++) {
      long t0 = cpu.getCurrentThreadCpuTime();
      for (int f = 0; f < raw.length; f++) {
        readPlain(blocksDir.resolve(String.format("blk%05d.dat", f)), xor, buffer, raw[f].length);
      }
      long t1 = cpu.getCurrentThreadCpuTime();
      for (int f = 0; f < raw.length; f++) {
        plain[f] = raw[f].clone(); // hashed in place: a fresh copy each pass
        xor.apply(plain[f], 0, plain[f].length, 0);
      }
      long t3 = cpu.getCurrentThreadCpuTime();
      long[] hashed = hashTxids(blocks, plain, txids, transactions);
      hashedBytes = hashed[0];
      txidBlocks = hashed[1];
      long t4 = cpu.getCurrentThreadCpuTime();
      insertAll(txids, blocks, txPerFile);
      long t5 = cpu.getCurrentThreadCpuTime();
      for (byte[] f : raw) {
        sha256.update(f);
      }
      sha256.digest();
      long t6 = cpu.getCurrentThreadCpuTime();
      long[] took = {t1 - t0, t4 - t3, t5 - t4, t6 - t5};
      for (int i = 0; i < took.length; i++) {
        best[i] = Math.min(best[i], took[i]);
      }
    }
    double tx = transactions;
    return new Result(
        blkBytes / tx,
        hashedBytes / tx,
        txidBlocks / tx,
        best[0] / tx,
        best[1] / tx,
        best[2] / tx,
        best[3] / tx);
  }

  /**
   * The walk + SHA-256d phase: every block's transactions hashed into {@code txids}; the bytes
   * hashed for txids and the SHA-256 blocks that took (padding and the second hash included).
   */
  private static long[] hashTxids(
      List<BlockInfo> blocks, byte[][] plain, byte[] txids, long transactions)
      throws CorruptRecordException {
    TxidHasher hasher = new TxidHasher();
    int n = 0;
    long hashedBytes = 0;
    long txidBlocks = 0;
    for (BlockInfo b : blocks) {
      byte[] data = plain[b.file()];
      int pos = (int) b.dataPos();
      int end = pos + (int) LittleEndian.uint32(data, pos - 4);
      int p = pos + BlockFileReader.HEADER_BYTES;
      int count = data[p++] & 0xFF;
      if (count >= 253) {
        int width = count == 253 ? 2 : 4;
        count =
            (int)
                (width == 2 ? LittleEndian.uint32(data, p) & 0xFFFF : LittleEndian.uint32(data, p));
        p += width;
      }
      for (int i = 0; i < count; i++) {
        p = hasher.hashOverwritingWitness(data, p, end, txids, 32 * n++);
        hashedBytes += hasher.lastHashedBytes();
        txidBlocks += (hasher.lastHashedBytes() + 9 + 63) / 64 + 1;
      }
    }
    if (n != transactions) {
      throw new CorruptRecordException(n + " transactions walked, " + transactions + " written");
    }
    return new long[] {hashedBytes, txidBlocks};
  }

  /** Reads a file as the source does: 256 KiB slices into a heap buffer, each un-XORed. */
  private static void readPlain(Path file, BlocksXorKey xor, byte[] buffer, int length)
      throws IOException {
    try (FileChannel ch = FileChannel.open(file)) {
      for (int p = 0; p < length; ) {
        int r = ch.read(ByteBuffer.wrap(buffer, p, Math.min(READ_SLICE, length - p)), p);
        if (r < 0) {
          throw new CorruptRecordException(file + " is shorter than " + length + " bytes");
        }
        xor.apply(buffer, p, r, p);
        p += r;
      }
    }
  }

  /** The txids, in block order, into fresh filters sized as a build sizes them. */
  private static void insertAll(byte[] txids, List<BlockInfo> blocks, long[] txPerFile) {
    BlockedBloomFilter[] byFile = BlkIngestBench.fileFilters(txPerFile);
    long transactions = txids.length / 32;
    try (BlockedBloomFilter summary = BlkIngestBench.summaryFilter(transactions)) {
      TxFilterPass pass =
          new TxFilterPass(byFile, summary, null, ProgressListener.NONE, "phases", transactions);
      int n = 0;
      for (BlockInfo b : blocks) {
        for (int i = 0; i < b.txCount(); i++) {
          pass.accept(txids, 32 * n++, b.file());
        }
      }
    } finally {
      for (BlockedBloomFilter f : byFile) {
        f.close();
      }
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }
}
