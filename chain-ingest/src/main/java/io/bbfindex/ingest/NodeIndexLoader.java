package io.bbfindex.ingest;

import com.google.common.base.Throwables;
import com.google.common.util.concurrent.Uninterruptibles;
import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.chain.ActiveChain;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.leveldb.LevelDbOpenException;
import io.bbfindex.ingest.leveldb.LevelDbReadException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.NodeLockProbe;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockLocator;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.BlockTable;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.DiskBlockIndex;
import io.bbfindex.ingest.records.FlagRecords;
import io.bbfindex.ingest.txindex.HashedKeys;
import io.bbfindex.ingest.txindex.HashedTxLookup;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.bitcoinj.base.Sha256Hash;
import org.jspecify.annotations.Nullable;

/**
 * Everything {@link NodeIndex#open} builds before the index can answer: the snapshots, the decoded
 * block index and active chain, the block files' key and magic, the txindex and its locator; and
 * the undo of a half-done open.
 */
// NullAway.Init: the fields are filled in phases, not by the constructor: NodeIndex.open sets the
// snapshot's owner, root and exit hook, then load() the rest, and only then does NodeIndex read
// them; abandon(), the one reader of a half-filled loader, checks each for null.
@SuppressWarnings("NullAway.Init")
final class NodeIndexLoader {

  private static final System.Logger LOG = System.getLogger(NodeIndex.class.getName());
  private static final int SNAPSHOT_ATTEMPTS = 5;

  /**
   * Where Core writes the genesis block: after the magic and size of blk00000.dat's first record.
   */
  private static final long GENESIS_DATA_POS = 8;

  final DataDirLayout layout;
  Path snapshotRoot;

  /** The lock on {@link #snapshotRoot} that tells other runs it is in use; null before. */
  Scratch.OwnedDir owner;

  /** Removes the snapshot if the JVM exits (SIGTERM) before close; null before. */
  Scratch.ExitHook exitHook;

  LevelDbSnapshot blockDb;
  LevelDbSnapshot txDb;
  Obfuscation blockObfuscation;
  Obfuscation txObfuscation;
  boolean legacyTxindex;
  TxIndexLayout txindexLayout = TxIndexLayout.LEGACY;
  @Nullable HashedTxLookup hashedLookup;
  boolean reindexing;
  boolean prunedBlockFiles;
  OptionalInt lastBlockFile;
  BlocksByHash blocksByHash;
  BlocksByPosition blocksByPosition;

  /** Every block, in the block index's key order (by hash). */
  BlockTable blocks;

  Map<Integer, BlockFileInfo> blockFiles;
  ActiveChain chain;
  BlockInfo tip;
  BigInteger tipChainWork;
  BlockInfo genesis;
  OptionalInt txindexTipHeight = OptionalInt.empty();
  byte[] txindexTipHash;
  BlockFileReader blockFileReader;
  BlocksXorKey xor;

  /** The databases are a copy of a running node's (see {@link HashedTxLookup#open}). */
  boolean liveSnapshot;

  /** A node without a txindex is opened ({@link TxIndexLayout#NONE}) instead of refused. */
  boolean txindexOptional;

  /** Where the decoded block index is kept between starts. */
  BlockIndexCache blockIndexCache;

  /** Whether the block index's records came from {@link #blockIndexCache}, not from a scan. */
  boolean blockIndexFromCache;

  /** The records a scan read (not the cache), until the open succeeded; null otherwise. */
  @Nullable BlockTable scanned;

  /** Writes a scan's records to the cache, off the path to the first answer; null if none. */
  @Nullable Thread blockIndexCacheWriter;

  NodeIndexLoader(DataDirLayout layout) {
    this.layout = layout;
  }

  void load() throws IOException {
    blockDb = snapshot(layout.blockIndexDir(), snapshotRoot.resolve("blocks-index"));
    // WHY on another thread: the txindex's copy and open (its logs replayed: 0.3-0.5 s at mainnet
    // geometry) need nothing from the block index, which is read meanwhile; the two were in
    // series on the way to serve's first answer. Started after the block index's open, whose
    // first native calls fill leveldbjni's caches once (LevelDbSnapshot#firstNativeCalls).
    @Nullable FutureTask<LevelDbSnapshot> txOpen =
        layout
            .txindexDir()
            .map(dir -> new FutureTask<>(() -> snapshot(dir, snapshotRoot.resolve("txindex"))))
            .orElse(null);
    if (txOpen != null) {
      Thread.ofPlatform().name("bbf-open-txindex").daemon().start(txOpen);
    }
    try {
      openBlockFiles();
      loadBlockIndex();
      if (txOpen != null) {
        txDb = opened(txOpen);
        txOpen = null;
      }
      loadBlockFilesAndTxindex();
    } catch (LevelDbReadException e) {
      throw new DataDirException(
          e.dir(),
          e.levelDbReport()
              + ": the database is damaged; let Bitcoin Core repair it (restart it with -reindex)",
          e);
    } finally {
      if (txOpen != null) {
        // the load failed before it took the txindex: its copy is closed with the rest (abandon)
        LevelDbSnapshot left = openedOrNull(txOpen);
        if (left != null) {
          txDb = left;
        }
      }
    }
    // only an open that succeeded keeps what it scanned: a refused one leaves the work dir as it
    // was
    if (scanned != null) {
      keepForNextStart(blockDb.contentDigest(), scanned, chain);
      scanned = null;
    }
  }

  private void loadBlockIndex() throws IOException {
    blockObfuscation = Obfuscation.read(blockDb);
    byte[] digest = blockDb.contentDigest();
    BlockIndexCache.Kept kept = blockIndexCache.read(digest).orElse(null);
    blockIndexFromCache = kept != null;
    BlockTable records = kept != null ? kept.records() : null;
    if (records == null) {
      records =
          BlockTable.of(
              BlockRecordScan.read(blockDb, blockObfuscation, layout.blockIndexDir(), cores()));
      if (records.size() > 0) {
        scanned = records; // kept once the whole open succeeded (see load)
      }
    }
    if (records.size() == 0 && liveSnapshot) {
      // A running node writes its block index to LevelDB only when it flushes (about hourly, and
      // at shutdown): a node started minutes ago may have none on disk yet. Its genesis block is
      // in the first block file all the same, and the follower takes every later block from the
      // node itself (and confirms the genesis with it) instead of from this snapshot.
      records = BlockTable.of(List.of(unflushedGenesis()));
    }
    if (records.size() == 0) {
      throw new DataDirException(
          layout.blockIndexDir(),
          "is a LevelDB without 'b' block records, not Bitcoin "
              + "Core's block index; point at a Bitcoin Core data directory");
    }
    blockFiles = readBlockFiles(blockObfuscation);
    reindexing = blockDb.get(new byte[] {DbKeys.REINDEX}) != null;
    byte[] last = blockDb.get(new byte[] {DbKeys.LAST_BLOCK});
    lastBlockFile =
        last == null
            ? OptionalInt.empty()
            : OptionalInt.of(
                decodeOrReport(
                    () -> FlagRecords.decodeLastBlockFile(blockObfuscation.plain(last))));
    prunedBlockFiles = flag("prunedblockfiles");
    // kept with the records (they are its only input): no ordering of every row by height again
    ActiveChain chain =
        (kept != null ? Optional.of(kept.chain()) : ActiveChain.compute(records))
            .orElseThrow(
                () ->
                    new DataDirException(
                        layout.blockIndexDir(),
                        "no block with validated transactions and data on disk: the node has not"
                            + " synced any block yet (or everything is marked invalid); let"
                            + " bitcoind sync, then retry"));
    indexBlocks(records, chain);
  }

  /**
   * Writes {@code records} and {@code chain} to the cache on a thread of its own (about 140 MB on
   * mainnet: not worth delaying the first answer for); {@link #awaitCacheWriter} waits for it. A
   * failure only costs the next start a scan.
   */
  private void keepForNextStart(byte[] digest, BlockTable records, ActiveChain chain) {
    BlockIndexCache cache = blockIndexCache;
    blockIndexCacheWriter =
        Thread.ofPlatform()
            .name("bbf-block-index-cache")
            .daemon()
            .start(
                () -> {
                  try {
                    cache.write(digest, records, chain);
                  } catch (IOException | RuntimeException e) {
                    LOG.log(
                        System.Logger.Level.WARNING,
                        "could not keep the block index in " + cache.file() + ": " + e);
                  }
                });
  }

  /**
   * Waits for the cache's writer, if one runs, even when interrupted: the work directory it writes
   * into may be deleted right after a close.
   */
  void awaitCacheWriter() {
    Thread writer = blockIndexCacheWriter;
    if (writer != null) {
      Uninterruptibles.joinUninterruptibly(writer);
    }
  }

  private void openBlockFiles() throws IOException {
    try {
      xor = BlocksXorKey.read(layout.blocksDir());
    } catch (CorruptRecordException e) {
      throw new DataDirException(
          layout.blocksDir().resolve(BlocksXorKey.FILE_NAME),
          "is not a block-file XOR key: "
              + e.getMessage()
              + "; Bitcoin Core writes exactly 8 bytes there, restore it from the node",
          e);
    }
    blockFileReader = new BlockFileReader(layout.blocksDir(), xor, null);
  }

  /**
   * The genesis block, as the one block of a running node's block index that has not been flushed
   * yet: Core writes it first, right after the first record's 8-byte prefix in blk00000.dat. Only a
   * block with no parent is taken; which network's genesis it is, the node confirms.
   */
  private DiskBlockIndex unflushedGenesis() throws DataDirException {
    Path file = blockFileReader.blockFile(0);
    try {
      byte[] header = blockFileReader.readHeader(0, GENESIS_DATA_POS);
      byte[] prev = Arrays.copyOfRange(header, 4, 36);
      if (!Arrays.equals(prev, new byte[32])) {
        throw new DataDirException(
            file,
            "the block index is empty and the first block there is not a genesis block; point"
                + " at a Bitcoin Core data directory");
      }
      return new DiskBlockIndex(
          Sha256Hash.hashTwice(header),
          0,
          0,
          BlockStatus.VALID_SCRIPTS | BlockStatus.HAVE_DATA,
          1,
          0,
          GENESIS_DATA_POS,
          -1,
          header);
    } catch (DataDirException e) {
      throw e;
    } catch (IOException e) {
      throw new DataDirException(
          layout.blockIndexDir(),
          "is empty (the node has not flushed it yet) and the genesis block cannot be read from "
              + file
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The txindex's snapshot once its open on another thread is done; its failure rethrown. */
  private static LevelDbSnapshot opened(FutureTask<LevelDbSnapshot> open) throws IOException {
    try {
      return Uninterruptibles.getUninterruptibly(open);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      Throwables.throwIfInstanceOf(cause, IOException.class);
      Throwables.throwIfUnchecked(cause);
      throw new IOException(cause);
    }
  }

  /** As {@link #opened}, null when the open failed (the load is failing for another reason). */
  private static @Nullable LevelDbSnapshot openedOrNull(FutureTask<LevelDbSnapshot> open) {
    try {
      return Uninterruptibles.getUninterruptibly(open);
    } catch (ExecutionException e) {
      return null;
    }
  }

  private void loadBlockFilesAndTxindex() throws IOException {
    checkGenesisOnDisk();

    if (layout.txindexDir().isPresent()) {
      // txDb: opened by load() while the block index was read
      txObfuscation = Obfuscation.read(txDb);
      // legacy 't' rows, hashed 'x' rows (Core >= 32) or both: see TxIndexLayout
      txindexLayout = TxIndexLayout.detect(txDb);
      byte[] locatorKey = {DbKeys.BEST_BLOCK};
      if (txindexLayout.hasHashedRows()) {
        hashedLookup = openHashed();
        locatorKey = HashedKeys.BEST_BLOCK_V2; // 'B' stays frozen where the legacy rows end
      }
      byte[] locator = txDb.get(locatorKey);
      if (locator != null) {
        BlockLocator decoded;
        try {
          decoded = BlockLocator.decode(locatorKey, txObfuscation.plain(locator));
        } catch (CorruptRecordException e) {
          throw new DataDirException(
              layout.txindexDir().get(),
              "corrupt txindex: "
                  + e.getMessage()
                  + "; restart bitcoind with -reindex to rebuild it",
              e);
        }
        decoded
            .tip()
            .ifPresent(
                h -> {
                  txindexTipHash = h;
                  int r = blocksByHash.row(h);
                  txindexTipHeight = r < 0 ? OptionalInt.empty() : OptionalInt.of(blocks.height(r));
                });
      }
    } else if (flag("txindex")) {
      // <= 0.16: 't' rows live in blocks/index and are written as blocks connect, ahead of the
      // block index flush, so the index is as current as the block index itself.
      legacyTxindex = true;
      txDb = blockDb;
      txObfuscation = blockObfuscation;
      txindexTipHash = tip.hash();
      txindexTipHeight = OptionalInt.of(tip.height());
    } else if (txindexOptional) {
      txindexLayout = TxIndexLayout.NONE;
    } else {
      throw new DataDirException(
          layout.datadir(),
          "has no transaction index (no indexes/txindex, and no legacy txindex flag in"
              + " blocks/index); restart bitcoind with -txindex=1 and let it build the index");
    }
  }

  private HashedTxLookup openHashed() throws IOException {
    try {
      return HashedTxLookup.open(
          txDb,
          h -> {
            int r = blocksByHash.row(h);
            return r < 0 ? null : info(r);
          },
          liveSnapshot);
    } catch (CorruptRecordException e) {
      throw new DataDirException(
          layout.txindexDir().get(),
          "corrupt hashed txindex: "
              + e.getMessage()
              + "; restart bitcoind with -reindex to rebuild it",
          e);
    }
  }

  private LevelDbSnapshot snapshot(Path source, Path target) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return LevelDbSnapshot.open(source, target);
      } catch (LevelDbOpenException e) {
        throw new DataDirException(e.dir(), e.problem(), e);
      } catch (NoSuchFileException e) {
        // a running node compacted a table away while we linked: start this copy over
        NodeIndex.deleteTree(target);
        if (attempt == SNAPSHOT_ATTEMPTS) {
          throw new DataDirException(
              source,
              "kept changing while being copied ("
                  + e.getMessage()
                  + "); stop bitcoind or use a filesystem snapshot",
              e);
        }
      }
    }
  }

  /** One part of the block index's scan per core, up to {@link BlockRecordScan#MAX_PARTS}. */
  private static int cores() {
    return Math.clamp(Runtime.getRuntime().availableProcessors(), 1, BlockRecordScan.MAX_PARTS);
  }

  private <T> T decodeOrReport(BlockRecordScan.Decoder<T> d) throws DataDirException {
    return BlockRecordScan.decodeOrReport(layout.blockIndexDir(), d);
  }

  private Map<Integer, BlockFileInfo> readBlockFiles(Obfuscation obf) throws IOException {
    Map<Integer, BlockFileInfo> out = new TreeMap<>();
    blockDb.scan(
        DbKeys.BLOCK_FILES,
        (k, v) -> {
          BlockFileInfo f = decodeOrReport(() -> BlockFileInfo.decode(k, obf.plain(v)));
          out.put(f.file(), f);
        });
    return out;
  }

  /** A {@code 'F'} flag of blocks/index; absent = false. */
  private boolean flag(String name) throws IOException {
    byte[] key = DbKeys.flagKey(name);
    byte[] v = blockDb.get(key);
    return v != null
        && decodeOrReport(() -> FlagRecords.decodeFlag(key, blockObfuscation.plain(v)));
  }

  /**
   * Hot path of every start: the lookups by hash and by position over the table's rows (950,000 on
   * mainnet), without a map entry or an object per block (see {@link BlocksByHash} and {@link
   * BlocksByPosition}); a block's {@link BlockInfo} is made when asked for ({@link #info}).
   */
  private void indexBlocks(BlockTable records, ActiveChain chain) {
    blocks = records;
    this.chain = chain;
    blocksByHash = BlocksByHash.of(records);
    blocksByPosition = BlocksByPosition.of(records);
    tip = info(chain.rowAt(chain.tipHeight()));
    tipChainWork = chain.tipWork();
    genesis = info(chain.rowAt(0));
  }

  /** The table's row {@code r} as the index answers it. */
  BlockInfo info(int r) {
    return blocks.info(r, chain.containsRow(r), chain.tipHeight());
  }

  /**
   * Reads the genesis block's header from blk files: learns the network magic and proves that the
   * block files belong to this index and are readable (catches a missing xor.dat early). Absent
   * file (pruned, or blocks elsewhere): left to the lookups to report.
   */
  private void checkGenesisOnDisk() throws DataDirException {
    if (genesis.dataPos() < 0) {
      return;
    }
    Path file = blockFileReader.blockFile(genesis.file());
    try {
      byte[] header = blockFileReader.readHeader(genesis.file(), genesis.dataPos());
      if (!Arrays.equals(header, genesis.header())) {
        throw new DataDirException(
            file,
            "the genesis block there differs from the block index's; the blocks "
                + "directory does not belong to this index");
      }
    } catch (NoSuchFileException e) {
      LOG.log(
          System.Logger.Level.WARNING, "{0} is missing: transactions in it cannot be read", file);
    } catch (CorruptRecordException e) {
      throw new DataDirException(
          file, "does not hold the genesis block where the block index says: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new DataDirException(file, "cannot be read: " + e.getMessage(), e);
    }
  }

  /** Undoes a failed open; the original failure is what the caller reports. */
  void abandon(Exception cause) {
    try {
      awaitCacheWriter();
      if (blockFileReader != null) {
        blockFileReader.close();
      }
      if (txDb != null && txDb != blockDb) {
        txDb.close();
      }
      if (blockDb != null) {
        blockDb.close();
      }
      if (owner != null) {
        owner.close();
      }
      if (snapshotRoot != null) {
        NodeIndex.deleteTree(snapshotRoot);
      }
      if (exitHook != null) {
        exitHook.close();
      }
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  static void refuseRunningNode(DataDirLayout layout) throws DataDirException {
    // bitcoind locks <datadir>/.lock and <blocksdir>/.lock (LockDirectory) and each LevelDB's LOCK
    List<Path> locks =
        new ArrayList<>(
            List.of(
                layout.datadir().resolve(".lock"),
                layout.blocksDir().resolve(".lock"),
                layout.blockIndexDir().resolve("LOCK")));
    layout.txindexDir().ifPresent(t -> locks.add(t.resolve("LOCK")));
    for (Path lock : locks) {
      boolean locked;
      try {
        locked = NodeLockProbe.isLocked(lock);
      } catch (IOException e) {
        throw new DataDirException(
            lock, "cannot check whether Bitcoin Core is running: " + e.getMessage(), e);
      }
      if (locked) {
        throw new DataDirException(
            lock,
            "is locked: Bitcoin Core is running on "
                + layout.datadir()
                + " and may be writing its indexes. Stop bitcoind (bitcoin-cli stop), or point at a"
                + " filesystem snapshot or copy of the data directory");
      }
    }
  }
}
