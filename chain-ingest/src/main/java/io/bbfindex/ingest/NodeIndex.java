package io.bbfindex.ingest;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import com.google.common.util.concurrent.Uninterruptibles;
import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.chain.ActiveChain;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.leveldb.LevelDbReadException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockTable;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.DiskTxPos;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.records.TxIndexScan;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.records.TxRecordConsumer;
import io.bbfindex.ingest.txindex.HashedTxLookup;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.RandomAccess;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;
import org.bitcoinj.core.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * Read-only view of a Bitcoin Core data directory: its block index, its txindex and its block
 * files. The node's files are never written, and its LevelDB directories are never opened: {@link
 * #open} takes private snapshots of them under a work directory (see {@link LevelDbSnapshot}) and
 * {@link #close} deletes them.
 *
 * <p>At open, every {@code 'b'} record is loaded and checked (its header must hash to its key), the
 * active chain is derived by cumulative work ({@link ActiveChain}), and the {@code 'f'} records and
 * the txindex's {@code 'B'} locator are read. Both txindex layouts are supported: {@code
 * indexes/txindex} (Core >= 0.17) and the legacy rows inside {@code blocks/index} (<= 0.16, flag
 * {@code 'F' "txindex"}).
 *
 * <p>Lookups are thread-safe. {@link #findTx} costs exactly one LevelDB get (counted by {@link
 * #leveldbReads()}), except for the genesis coinbase, which Core never indexes and which is
 * answered from the block index. {@link #findBlock} never reads LevelDB.
 *
 * <p>Failures after open are {@link IndexReadException}s (unchecked) naming the record or file.
 */
public final class NodeIndex implements AutoCloseable {

  private final DataDirLayout layout;
  private final Path snapshotRoot;
  private final Scratch.OwnedDir owner;
  private final Scratch.ExitHook exitHook;
  private final LevelDbSnapshot blockDb;
  private final LevelDbSnapshot txDb;
  private final Obfuscation txObfuscation;
  private final boolean legacyTxindex;
  private final TxIndexLayout txindexLayout;

  /** Null for a legacy-only txindex. */
  private final @Nullable HashedTxLookup hashedLookup;

  private final boolean reindexing;
  private final boolean prunedBlockFiles;
  private final OptionalInt lastBlockFile;
  private final BlocksByHash blocksByHash;
  private final BlocksByPosition blocksByPosition;
  private final BlockTable table;
  private final ActiveChain chain;
  private final Collection<BlockInfo> blocks;
  private final Map<Integer, BlockFileInfo> blockFiles;
  private final BlockInfo tip;
  private final BigInteger tipChainWork;
  private final BlockInfo genesis;
  private final OptionalInt txindexTipHeight;
  private final byte[] txindexTipHash;
  private final BlockFileReader blockFileReader;
  private final BlocksXorKey blocksXorKey;
  private final LongAdder leveldbReads = new LongAdder();

  /**
   * Readers hold it while touching native LevelDB handles, so close cannot free them underneath.
   */
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();

  private boolean closed;

  private final boolean blockIndexFromCache;

  /** Writes the block index to its cache after a scan (see {@link #blockIndexFromCache}). */
  private final @Nullable Thread blockIndexCacheWriter;

  /** Keeps that cache in step with a running node; null for a stopped node's datadir. */
  private final @Nullable BlockIndexCacheRefresher cacheRefresher;

  private NodeIndex(NodeIndexLoader o) {
    this.layout = o.layout;
    this.snapshotRoot = o.snapshotRoot;
    this.owner = o.owner;
    this.exitHook = o.exitHook;
    this.blockDb = o.blockDb;
    this.txDb = o.txDb;
    this.txObfuscation = o.txObfuscation;
    this.legacyTxindex = o.legacyTxindex;
    this.txindexLayout = o.txindexLayout;
    this.hashedLookup = o.hashedLookup;
    this.reindexing = o.reindexing;
    this.prunedBlockFiles = o.prunedBlockFiles;
    this.lastBlockFile = o.lastBlockFile;
    this.blocksByHash = o.blocksByHash;
    this.blocksByPosition = o.blocksByPosition;
    this.table = o.blocks;
    this.chain = o.chain;
    this.blocks = new BlockList();
    this.blockFiles = Collections.unmodifiableMap(o.blockFiles);
    this.tip = o.tip;
    this.tipChainWork = o.tipChainWork;
    this.genesis = o.genesis;
    this.txindexTipHeight = o.txindexTipHeight;
    this.txindexTipHash = o.txindexTipHash;
    this.blockFileReader = o.blockFileReader;
    this.blocksXorKey = o.xor;
    this.blockIndexFromCache = o.blockIndexFromCache;
    this.blockIndexCacheWriter = o.blockIndexCacheWriter;
    // a stopped node's block index does not change under an open index; a running node's does
    this.cacheRefresher =
        o.liveSnapshot
            ? BlockIndexCacheRefresher.start(
                layout.blockIndexDir(),
                o.blockIndexCache.workDir(),
                o.blockIndexCache,
                o.blockDb.contentDigest(),
                BlockIndexCacheRefresher.DEFAULT_PERIOD)
            : null;
  }

  /**
   * Opens a stopped node's data directory.
   *
   * @param datadir the directory holding {@code blocks/} (e.g. {@code ~/.bitcoin}, or {@code
   *     ~/.bitcoin/regtest} for a regtest node)
   * @param workDir where the private snapshots go (created if missing; a fresh subdirectory is used
   *     and deleted on {@link #close}). Same filesystem as the datadir makes the snapshot hard
   *     links instead of copies.
   * @throws DataDirException if the path is not a usable data directory, the node is running (it
   *     holds its LevelDB locks), there is no txindex, or a record is corrupt; the message names
   *     the path and the fix
   */
  public static NodeIndex open(Path datadir, Path workDir) throws DataDirException {
    return open(datadir, workDir, false);
  }

  /**
   * As {@link #open(Path, Path)}; with {@code allowRunningNode}, a node holding its locks is not
   * refused: its directories are copied best-effort (table files are immutable, and a table
   * compacted away during the copy makes the copy start over), but writes the node has not flushed
   * yet are missing and the copy of its log may end mid-record. Prefer a stopped node or a
   * filesystem snapshot.
   */
  public static NodeIndex open(Path datadir, Path workDir, boolean allowRunningNode)
      throws DataDirException {
    return open(datadir, workDir, allowRunningNode, false);
  }

  /**
   * As {@link #open(Path, Path, boolean)}; with {@code txindexOptional}, a node without a txindex
   * (Core's default) is opened with layout {@link TxIndexLayout#NONE} instead of refused: its block
   * index and blk files are read, {@link #findTx} answers only the genesis coinbase, and lookups go
   * through bbf-index's own index ({@code io.bbfindex.ingest.ownindex}).
   */
  public static NodeIndex open(
      Path datadir, Path workDir, boolean allowRunningNode, boolean txindexOptional)
      throws DataDirException {
    Objects.requireNonNull(datadir, "datadir");
    Objects.requireNonNull(workDir, "workDir");
    Path dd = datadir.toAbsolutePath().normalize();
    DataDirLayout layout = DataDirLayout.detect(dd);
    if (!allowRunningNode) {
      NodeIndexLoader.refuseRunningNode(layout);
    }
    NodeIndexLoader o = new NodeIndexLoader(layout);
    o.liveSnapshot = allowRunningNode;
    o.txindexOptional = txindexOptional;
    Path work = workDir.toAbsolutePath().normalize();
    try {
      Files.createDirectories(work);
      // snapshots of runs killed before their close or shutdown hook could remove them
      Scratch.removeStaleSnapshots(work);
      o.blockIndexCache = new BlockIndexCache(work);
      o.blockIndexCache.removeLeftovers();
      o.owner = Scratch.createSnapshotDir(work);
      o.snapshotRoot = o.owner.dir();
    } catch (IOException e) {
      throw unusableWork(work, e);
    }
    Path root = o.snapshotRoot;
    // the loading thread goes on copying while the hook runs: delete until it can add nothing more
    o.exitHook =
        Scratch.onExit(
            "bbf-snapshot-cleanup",
            () -> Scratch.deleteUntilGone(root, Scratch.EXIT_CLEANUP_PATIENCE));
    try {
      o.load();
      return new NodeIndex(o);
    } catch (DataDirException e) {
      o.abandon(e);
      throw e;
    } catch (IOException | RuntimeException e) {
      o.abandon(e);
      if (e instanceof FileSystemException f
          && (inside(f.getFile(), work) || inside(f.getOtherFile(), work))) {
        // copying into the snapshot failed (e.g. the work directory's file system is full)
        throw unusableWork(work, f);
      }
      throw new DataDirException(dd, "could not be read: " + e.getMessage(), e);
    }
  }

  /**
   * The work directory, not the data directory, is at fault: not creatable, not writable, or full.
   */
  private static DataDirException unusableWork(Path work, IOException e) {
    String reason =
        e instanceof FileSystemException f && f.getReason() != null ? f.getReason() : e.toString();
    return new DataDirException(
        work,
        "the work directory cannot hold the private LevelDB snapshots ("
            + reason
            + "); pass a writable --work directory with free space",
        e);
  }

  private static boolean inside(String file, Path dir) {
    return file != null && Path.of(file).toAbsolutePath().normalize().startsWith(dir);
  }

  // ---------------------------------------------------------------- lookups

  /**
   * Where Core's txindex says {@code txidInternal} is. Exactly one LevelDB get (counted); in a
   * hashed index (Core >= 32) one seek plus a blk read per candidate row ({@link HashedTxLookup}),
   * and in a mixed one a {@code 't'} get too when the hashed rows miss. Except for the genesis
   * coinbase: Core never indexes it (getrawtransaction refuses it), but it is a real transaction of
   * block 0, so it is answered from the block index (block 0's file and position, tx offset 1:
   * after the one-byte tx count) without a read. Its txid is block 0's merkle root, which holds on
   * every network.
   *
   * @param txidInternal 32 bytes, internal (reversed display) order
   * @return empty when the txindex has no row (unknown, unconfirmed, or not indexed yet)
   * @throws IndexReadException if the row is corrupt or points at no known block; its cause is a
   *     {@link io.bbfindex.ingest.blockfile.DamagedBlockException} when a hashed row's block bytes
   *     are not what the block's header commits to (the txid may be there: no "absent")
   */
  public Optional<TxLocation> findTx(byte[] txidInternal) {
    requireHash(txidInternal, "txid");
    if (genesis.dataPos() >= 0 && Arrays.equals(txidInternal, 0, 32, genesis.header(), 36, 68)) {
      return Optional.of(
          new TxLocation(txidInternal.clone(), genesis.file(), genesis.dataPos(), 1, genesis));
    }
    if (txindexLayout == TxIndexLayout.NONE) {
      throw new IllegalStateException(
          layout.datadir() + " has no txindex: look transactions up in the own index");
    }
    if (hashedLookup != null) {
      Optional<TxLocation> hashed = findHashed(hashedLookup, txidInternal);
      if (hashed.isPresent() || !txindexLayout.hasLegacyRows()) {
        return hashed;
      }
    }
    byte[] raw;
    lifecycle.readLock().lock();
    try {
      checkOpen();
      leveldbReads.increment();
      raw = txDb.get(DbKeys.txKey(txidInternal));
    } catch (LevelDbReadException e) {
      throw new IndexReadException(
          "txindex lookup of " + toDisplayHex(txidInternal) + " failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
    if (raw == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(resolve(txidInternal, raw));
    } catch (CorruptRecordException e) {
      throw new IndexReadException(
          "txindex lookup of " + toDisplayHex(txidInternal) + " failed: " + e.getMessage(), e);
    }
  }

  /** The hashed rows' answer (Core >= 32): one seek, then a blk read per candidate. */
  private Optional<TxLocation> findHashed(HashedTxLookup hashedLookup, byte[] txidInternal) {
    lifecycle.readLock().lock();
    try {
      checkOpen();
      leveldbReads.increment();
      return hashedLookup.find(txidInternal, blockFileReader);
    } catch (IOException e) {
      throw new IndexReadException(
          "txindex lookup of " + toDisplayHex(txidInternal) + " failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Decodes a raw (possibly obfuscated) 't' value and finds its block. Package-private for tests.
   */
  TxLocation resolve(byte[] txid, byte[] rawValue) throws CorruptRecordException {
    byte[] key = DbKeys.txKey(txid);
    DiskTxPos p = DiskTxPos.decode(key, txObfuscation.plain(rawValue));
    int r = blocksByPosition.row(p.file(), p.dataPos());
    if (r < 0) {
      throw new CorruptRecordException(
          "'t' txindex record (key "
              + HexFormat.of().formatHex(key)
              + "): points at "
              + blockFileReader.blockFile(p.file()).getFileName()
              + " position "
              + p.dataPos()
              + ", where the block index has no block");
    }
    return new TxLocation(txid.clone(), p.file(), p.dataPos(), p.txOffset(), info(r));
  }

  /** The block with this hash (internal order) from the in-memory block index; no LevelDB read. */
  public Optional<BlockInfo> findBlock(byte[] hashInternal) {
    requireHash(hashInternal, "block hash");
    int r = blocksByHash.row(hashInternal);
    return r < 0 ? Optional.empty() : Optional.of(info(r));
  }

  /** The table's row {@code r} as the index answers it: made now, from the columns. */
  private BlockInfo info(int r) {
    return table.info(r, chain.containsRow(r), chain.tipHeight());
  }

  /**
   * {@link #blocks()}: each block made when read (from the columns), none kept; the table's order.
   */
  private final class BlockList extends AbstractList<BlockInfo> implements RandomAccess {
    @Override
    public BlockInfo get(int index) {
      return info(Objects.checkIndex(index, table.size()));
    }

    @Override
    public int size() {
      return table.size();
    }
  }

  /**
   * Reads the transaction's bytes from its block file and checks them: the block header at the
   * location must hash to {@code loc.block()}'s hash and the transaction's txid must be {@code
   * loc.txid()} (Core's own check in TxIndex::FindTx).
   *
   * @throws IndexReadException (cause {@link CorruptRecordException}) on a mismatch or malformed
   *     bytes; (cause another IOException) if the file cannot be read
   */
  public Transaction readTransaction(TxLocation loc) {
    Objects.requireNonNull(loc, "loc");
    lifecycle.readLock().lock();
    try {
      checkOpen();
      return blockFileReader.readTransaction(
          loc.file(), loc.dataPos(), loc.txOffset(), loc.txid(), loc.block().hash());
    } catch (IOException e) {
      throw new IndexReadException(
          "reading transaction " + loc.txidHex() + " failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Calls {@code consumer} for every {@code 't'} record of the txindex, in key (txid) order. The
   * hashed {@code 'x'} rows of Core >= 32 store no txid: for a hashed or mixed index, the txids
   * come from the blk files ({@link io.bbfindex.ingest.txindex.BlockDataTxSource}). No allocation
   * per record beyond what leveldbjni's iterator makes: the txid array is reused (see {@link
   * TxRecordConsumer}). Does not count as {@link #leveldbReads()}.
   *
   * @throws IndexReadException if a record is malformed
   */
  public void forEachTx(TxRecordConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    lifecycle.readLock().lock();
    try {
      checkOpen();
      TxIndexScan.scan(txDb, txObfuscation, consumer);
    } catch (IOException e) {
      throw new IndexReadException("txindex scan failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * {@link #forEachTx(TxRecordConsumer)} restricted to the txids whose first byte (internal order)
   * is in {@code [fromFirstByte, toFirstByte)}, for splitting a full scan over threads; ranges may
   * be scanned concurrently, each call with its own consumer.
   *
   * @throws IndexReadException if a record is malformed
   */
  public void forEachTx(int fromFirstByte, int toFirstByte, TxRecordConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    lifecycle.readLock().lock();
    try {
      checkOpen();
      TxIndexScan.scan(txDb, txObfuscation, fromFirstByte, toFirstByte, consumer);
    } catch (IOException e) {
      throw new IndexReadException("txindex scan failed: " + e.getMessage(), e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * LevelDB gets made by {@link #findTx} so far (the only method that reads LevelDB after open),
   * those the txindex tables' Bloom filter blocks answer without reaching LevelDB included ({@link
   * LevelDbSnapshot#get}).
   */
  public long leveldbReads() {
    return leveldbReads.sum();
  }

  /** Height of the active chain's tip. */
  public int tipHeight() {
    return tip.height();
  }

  /** Hash (internal order) of the active chain's tip. */
  public byte[] tipHash() {
    return tip.hash().clone();
  }

  /** Cumulative work of the active chain (Core's {@code chainwork} of the tip). */
  public BigInteger tipChainWork() {
    return tipChainWork;
  }

  /** The active tip's block. */
  public BlockInfo tip() {
    return tip;
  }

  /** The active chain's block at {@code height}, or empty below 0 / above the tip. */
  public Optional<BlockInfo> activeBlockAt(int height) {
    return height < 0 || height > chain.tipHeight()
        ? Optional.empty()
        : Optional.of(info(chain.rowAt(height)));
  }

  /**
   * Height of the block the txindex was last committed at ({@code 'B'} locator's first hash); empty
   * when the txindex never committed or its tip is unknown to the block index. Rows may run ahead
   * of it by up to one commit interval. For a legacy (<= 0.16) txindex, the block index tip.
   */
  public OptionalInt txindexTipHeight() {
    return txindexTipHeight;
  }

  /** Hash of the txindex's committed block, if any. */
  public Optional<byte[]> txindexTipHash() {
    return Optional.ofNullable(txindexTipHash).map(byte[]::clone);
  }

  /**
   * Every {@code 'b'} record (including stale and header-only blocks), in no promised order (today
   * the block index's key order, i.e. by hash). A view: each block is made when read, from the
   * in-memory columns (no object per block is kept: 950,000 on mainnet), so reading it twice gives
   * equal blocks, not the same objects.
   */
  public Collection<BlockInfo> blocks() {
    return blocks;
  }

  /**
   * The same blocks as {@link #blocks()}, in the same order, as columns: for passes over every
   * block that should make no object per block.
   */
  public BlockTable blockTable() {
    return table;
  }

  /** The {@code 'f'} records by file number. */
  public Map<Integer, BlockFileInfo> blockFiles() {
    return blockFiles;
  }

  /** The data directory (absolute, normalized). */
  public Path datadir() {
    return layout.datadir();
  }

  /** Whether the txindex is the legacy one inside {@code blocks/index} (Core <= 0.16). */
  public boolean legacyTxindex() {
    return legacyTxindex;
  }

  /** Which rows the txindex holds: legacy {@code 't'}, hashed {@code 'x'} (Core >= 32) or both. */
  public TxIndexLayout txindexLayout() {
    return txindexLayout;
  }

  /**
   * Layout and location of the txindex for people: e.g. {@code "hashed, indexes/txindex"} or {@code
   * "legacy, blocks/index"} (Core <= 0.16).
   */
  public String txindexDescription() {
    if (txindexLayout == TxIndexLayout.NONE) {
      return "none (the node runs without -txindex)";
    }
    return txindexLayout.label() + ", " + (legacyTxindex ? "blocks/index" : "indexes/txindex");
  }

  /** The hashed-row lookup (salt, block seqs), empty for a legacy-only txindex. */
  public Optional<HashedTxLookup> hashedLookup() {
    return Optional.ofNullable(hashedLookup);
  }

  /**
   * Whether the block index's records were taken from the work directory's cache, kept by an
   * earlier open of the same node, because its block index holds what it held then; false when they
   * were read from the node's LevelDB (and the cache written for the next open).
   */
  public boolean blockIndexFromCache() {
    return blockIndexFromCache;
  }

  /** The cache's refresher of a running node's index, null for a stopped node's (for tests). */
  @Nullable BlockIndexCacheRefresher cacheRefresher() {
    return cacheRefresher;
  }

  /**
   * Whether the node was interrupted during a reindex ({@code 'R'} flag): the index is incomplete.
   */
  public boolean reindexing() {
    return reindexing;
  }

  /** Whether the node has ever pruned block files ({@code 'F' "prunedblockfiles"}). */
  public boolean prunedBlockFiles() {
    return prunedBlockFiles;
  }

  /** The highest blk file number Core has written ({@code 'l'}), if recorded. */
  public OptionalInt lastBlockFile() {
    return lastBlockFile;
  }

  /** The block-file reader (for scanning blk files in file order). */
  public BlockFileReader blockFileReader() {
    return blockFileReader;
  }

  /** The key of {@code blocks/xor.dat} (all-zero, inactive, before Core 28). */
  public BlocksXorKey blocksXorKey() {
    return blocksXorKey;
  }

  /** Closes the snapshots and deletes them. Idempotent. */
  @Override
  public void close() throws IOException {
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (cacheRefresher != null) {
        cacheRefresher.close();
      }
      if (blockIndexCacheWriter != null) {
        // the work directory it writes into may be deleted as soon as this returns
        Uninterruptibles.joinUninterruptibly(blockIndexCacheWriter);
      }
      IOException failure = null;
      for (AutoCloseable c :
          Stream.of(blockFileReader, txDb == blockDb ? null : txDb, blockDb)
              .filter(Objects::nonNull)
              .toList()) {
        try {
          c.close();
        } catch (Exception e) {
          if (failure == null) {
            failure = new IOException("closing " + layout.datadir() + " snapshot failed", e);
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      owner.close();
      deleteTree(snapshotRoot);
      exitHook.close();
      if (failure != null) {
        throw failure;
      }
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("NodeIndex of " + layout.datadir() + " is closed");
    }
  }

  private static void requireHash(byte[] h, String what) {
    Objects.requireNonNull(h, what);
    if (h.length != 32) {
      throw new IllegalArgumentException(what + " must be 32 bytes (internal order): " + h.length);
    }
  }

  /** For the shutdown hook: removes what it can, the JVM is exiting. */
  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
