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

  static SourcePlan of(ChainSource index, Path outDir) throws FilterBuildException {
    Map<Integer, long[]> capacity = new TreeMap<>();
    Map<Integer, BlockInfo> last = new TreeMap<>();
    List<byte[]> hashes = new ArrayList<>();
    for (BlockInfo b : index.blocks()) {
      if (!BlockStatus.hasData(b.status()) || b.file() < 0) {
        continue;
      }
      checkFile(b.file(), index, outDir);
      hashes.add(b.hash());
      capacity.computeIfAbsent(b.file(), f -> new long[1])[0] +=
          Integer.toUnsignedLong(b.txCount());
      last.merge(b.file(), b, (x, y) -> x.height() >= y.height() ? x : y);
    }
    List<FileSource> files = new ArrayList<>();
    Map<Integer, BlockFileInfo> f = new TreeMap<>(index.blockFiles());
    for (Integer n : capacity.keySet()) {
      f.putIfAbsent(n, new BlockFileInfo(n, 0, 0, 0, 0, 0, 0, 0));
    }
    long expected = 0;
    int slots = 0;
    for (BlockFileInfo info : f.values()) {
      checkFile(info.file(), index, outDir);
      long cap = capacity.getOrDefault(info.file(), new long[1])[0];
      BlockInfo lb = last.get(info.file());
      files.add(
          new FileSource(
              info.file(),
              info.blocks(),
              info.size(),
              info.heightLast(),
              cap,
              lb == null ? new byte[32] : lb.hash()));
      expected += cap;
      slots = Math.max(slots, info.file() + 1);
    }
    hashes.sort(Arrays::compareUnsigned);
    return new SourcePlan(List.copyOf(files), slots, hashes, digest(hashes), expected);
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

  /** SHA-256 over the sorted hashes: any added, removed or changed block changes it. */
  private static String digest(List<byte[]> sorted) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (byte[] h : sorted) {
        md.update(h);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
