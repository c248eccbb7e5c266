package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.BlockFileInfo;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the node holds, as far as sizing the filters goes, read from the in-memory block index
 * before any txindex row is scanned: per block file its {@code 'f'} record and the sum of the
 * transaction counts of the blocks stored in it (an upper bound of the txindex rows pointing into
 * it: Core indexes every transaction of every block it connects, except the genesis coinbase and
 * the two BIP30 duplicate coinbases, and never-connected blocks have no rows), plus the block
 * hashes.
 */
record SourcePlan(
    List<FileSource> files,
    int fileSlots,
    List<byte[]> blockHashes,
    String blockDigest,
    long expectedRecords) {

  /** File numbers above this are refused: 2^20 files of 128 MiB is 128 TiB of blocks. */
  static final int MAX_FILE_NUMBER = 1 << 20;

  /**
   * One block file.
   *
   * @param capacity txids to size its filter for (sum of nTx of its blocks with data)
   * @param lastBlock hash of its highest block (the filter's source tip), zeros if it has none
   */
  record FileSource(
      int file, long fBlocks, long fSize, long heightLast, long capacity, byte[] lastBlock) {}

  /**
   * Reads the plan off the block index in one pass over its blocks, with per-file sums in arrays
   * indexed by file number: at mainnet geometry (about 950,000 blocks) this is what every start of
   * {@code serve} pays before it knows that the store is up to date, so no map entry, boxing or
   * comparator call per block. The blocks come in hash order, so their files are in no order: the
   * file's top height so far is kept in an {@code int[]} (small, cached) beside the block, so that
   * comparing with it does not read that block back from anywhere in the heap (a cache miss per
   * block, most of this loop's time in a profile); the block itself is read only on a tie.
   */
  static SourcePlan of(ChainSource index, Path outDir) throws FilterBuildException {
    long[] capacity = new long[16];
    BlockInfo[] last = new BlockInfo[16];
    int[] lastHeight = new int[16]; // last[n].height(), when last[n] is set
    byte[][] hashes = new byte[Math.max(16, index.blocks().size())][];
    ContiguousHashes flat = new ContiguousHashes(hashes.length);
    int count = 0;
    int maxFile = -1;
    for (BlockInfo b : index.blocks()) {
      int file = b.file();
      if (!BlockStatus.hasData(b.status()) || file < 0) {
        continue;
      }
      checkFile(file, index, outDir);
      if (file >= capacity.length) {
        int grown = Math.max(file + 1, capacity.length * 2);
        capacity = Arrays.copyOf(capacity, grown);
        last = Arrays.copyOf(last, grown);
        lastHeight = Arrays.copyOf(lastHeight, grown);
      }
      if (count == hashes.length) { // the collection grew under us: not the real index, but safe
        hashes = Arrays.copyOf(hashes, count * 2);
      }
      byte[] hash = b.hash();
      hashes[count++] = hash;
      flat.add(hash);
      capacity[file] += Integer.toUnsignedLong(b.txCount());
      int height = b.height();
      BlockInfo l = last[file];
      // Two blocks at a file's top height (a fork inside one file): the lower hash, so that the
      // plan does not depend on the order the index hands its blocks out in.
      if (l == null
          || height > lastHeight[file]
          || (height == lastHeight[file] && Arrays.compareUnsigned(hash, l.hash()) < 0)) {
        last[file] = b;
        lastHeight[file] = height;
      }
      maxFile = Math.max(maxFile, file);
    }
    Map<Integer, BlockFileInfo> f = new TreeMap<>(index.blockFiles());
    for (int n = 0; n <= maxFile; n++) {
      if (last[n] != null) {
        f.putIfAbsent(n, new BlockFileInfo(n, 0, 0, 0, 0, 0, 0, 0));
      }
    }
    List<FileSource> files = new ArrayList<>(f.size());
    long expected = 0;
    int slots = 0;
    for (BlockFileInfo info : f.values()) {
      checkFile(info.file(), index, outDir);
      int n = info.file();
      boolean known = n >= 0 && n <= maxFile;
      long cap = known ? capacity[n] : 0;
      BlockInfo lb = known ? last[n] : null;
      files.add(
          new FileSource(
              n,
              info.blocks(),
              info.size(),
              info.heightLast(),
              cap,
              lb == null ? new byte[32] : lb.hash()));
      expected += cap;
      slots = Math.max(slots, n + 1);
    }
    String digest = flat.digestIfSorted(); // the usual case: no sort, no pass over the hashes
    byte[][] sorted =
        digest != null ? Arrays.copyOf(hashes, count) : BlockHashOrder.sort(hashes, count);
    return new SourcePlan(
        List.copyOf(files),
        slots,
        Arrays.asList(sorted),
        digest != null ? digest : digest(sorted),
        expected);
  }

  private static void checkFile(int file, ChainSource index, Path outDir)
      throws FilterBuildException {
    if (file > MAX_FILE_NUMBER) {
      throw new FilterBuildException(
          index.datadir(),
          "the block index names block file "
              + file
              + ", beyond any real node ("
              + MAX_FILE_NUMBER
              + "); the block index is corrupt: restart bitcoind with "
              + "-reindex (nothing was written to "
              + outDir
              + ")");
    }
  }

  /** Whether the node stores the block {@code hash} (internal order), active or stale. */
  boolean holdsBlock(byte[] hash) {
    return java.util.Collections.binarySearch(blockHashes, hash, Arrays::compareUnsigned) >= 0;
  }

  /**
   * SHA-256 over the sorted hashes: any added, removed or changed block changes it. The hashes are
   * gathered into buffers of 1 MiB first: one digest call per 32-byte hash cost more than the
   * hashing itself.
   */
  static String digest(byte[][] sorted) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 20];
      int at = 0;
      for (byte[] h : sorted) {
        if (at + h.length > buf.length) {
          md.update(buf, 0, at);
          at = 0;
        }
        System.arraycopy(h, 0, buf, at, h.length);
        at += h.length;
      }
      md.update(buf, 0, at);
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
