package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.BlockFileInfo;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.BlockTable;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.TreeMap;
import java.util.function.IntBinaryOperator;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.ObjIntConsumer;

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
   *
   * <p>A node's index is read through its columns ({@link ChainSource#blockTable}), not through
   * {@link ChainSource#blocks}, which would make a block object per block; the hashes are then
   * copied from its hash column, and {@link #blockHashes} is a view over that copy.
   */
  static SourcePlan of(ChainSource index, Path outDir) throws FilterBuildException {
    Rows rows = index.blockTable().map(Rows::of).orElseGet(() -> Rows.of(index.blocks()));
    long[] capacity = new long[16];
    int[] last = new int[16]; // the row of the file's block at its top height, -1 for none
    Arrays.fill(last, -1);
    int[] lastHeight = new int[16]; // that row's height, when last[n] is set
    int[] withData = new int[rows.size()];
    ContiguousHashes flat = new ContiguousHashes(Math.max(16, rows.size()));
    int count = 0;
    int maxFile = -1;
    for (int r = 0; r < rows.size(); r++) {
      int file = rows.file().applyAsInt(r);
      if (!BlockStatus.hasData(rows.status().applyAsInt(r)) || file < 0) {
        continue;
      }
      checkFile(file, index, outDir);
      if (file >= capacity.length) {
        int had = capacity.length;
        int grown = Math.max(file + 1, had * 2);
        capacity = Arrays.copyOf(capacity, grown);
        last = Arrays.copyOf(last, grown);
        Arrays.fill(last, had, grown, -1);
        lastHeight = Arrays.copyOf(lastHeight, grown);
      }
      withData[count++] = r;
      rows.addHash().accept(flat, r);
      capacity[file] += Integer.toUnsignedLong(rows.txCount().applyAsInt(r));
      int height = rows.height().applyAsInt(r);
      int l = last[file];
      // Two blocks at a file's top height (a fork inside one file): the lower hash, so that the
      // plan does not depend on the order the index hands its blocks out in.
      if (l < 0
          || height > lastHeight[file]
          || (height == lastHeight[file] && rows.compareHashes().applyAsInt(r, l) < 0)) {
        last[file] = r;
        lastHeight[file] = height;
      }
      maxFile = Math.max(maxFile, file);
    }
    Map<Integer, BlockFileInfo> f = new TreeMap<>(index.blockFiles());
    for (int n = 0; n <= maxFile; n++) {
      if (last[n] >= 0) {
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
      int lb = known ? last[n] : -1;
      files.add(
          new FileSource(
              n,
              info.blocks(),
              info.size(),
              info.heightLast(),
              cap,
              lb < 0 ? new byte[32] : rows.hash().apply(lb)));
      expected += cap;
      slots = Math.max(slots, n + 1);
    }
    String digest = flat.digestIfSorted(); // the usual case: no sort, no pass over the hashes
    if (digest != null) {
      int[] inOrder = Arrays.copyOf(withData, count);
      return new SourcePlan(
          List.copyOf(files), slots, new HashList(rows, inOrder), digest, expected);
    }
    byte[][] hashes = new byte[count][];
    for (int i = 0; i < count; i++) {
      hashes[i] = rows.hash().apply(withData[i]);
    }
    byte[][] sorted = BlockHashOrder.sort(hashes, count);
    return new SourcePlan(
        List.copyOf(files), slots, Arrays.asList(sorted), digest(sorted), expected);
  }

  /**
   * The blocks {@link #of} reads: a node's columns, or any collection of blocks.
   *
   * @param hash row r's hash (the block's own array, or a copy of the column's)
   */
  private record Rows(
      int size,
      IntUnaryOperator status,
      IntUnaryOperator file,
      IntUnaryOperator txCount,
      IntUnaryOperator height,
      IntFunction<byte[]> hash,
      IntBinaryOperator compareHashes,
      ObjIntConsumer<ContiguousHashes> addHash) {

    static Rows of(BlockTable t) {
      return new Rows(
          t.size(),
          t::status,
          t::file,
          t::txCount,
          t::height,
          t::hash,
          t::compareHashes,
          (to, r) -> to.add(t, r));
    }

    static Rows of(Collection<BlockInfo> blocks) {
      BlockInfo[] b = blocks.toArray(new BlockInfo[0]);
      return new Rows(
          b.length,
          r -> b[r].status(),
          r -> b[r].file(),
          r -> b[r].txCount(),
          r -> b[r].height(),
          r -> b[r].hash(),
          (x, y) -> Arrays.compareUnsigned(b[x].hash(), b[y].hash()),
          (to, r) -> to.add(b[r].hash()));
    }
  }

  /** The hashes of some rows, in the rows' order, each made when read. */
  private static final class HashList extends AbstractList<byte[]> implements RandomAccess {
    private final Rows rows;
    private final int[] order;

    HashList(Rows rows, int[] order) {
      this.rows = rows;
      this.order = order;
    }

    @Override
    public byte[] get(int index) {
      return rows.hash().apply(order[Objects.checkIndex(index, order.length)]);
    }

    @Override
    public int size() {
      return order.length;
    }
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
