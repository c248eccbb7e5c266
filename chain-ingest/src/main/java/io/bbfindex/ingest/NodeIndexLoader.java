package io.bbfindex.ingest;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.chain.ActiveChain;
import io.bbfindex.ingest.chain.ProofOfWorkCheck;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.LittleEndian;
import io.bbfindex.ingest.leveldb.LevelDbOpenException;
import io.bbfindex.ingest.leveldb.LevelDbReadException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.NodeLockProbe;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockLocator;
import io.bbfindex.ingest.records.BlockStatus;
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
import java.util.OptionalInt;
import java.util.TreeMap;
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

  /** At most this many threads decode the block index (see {@link #readBlockRecords}). */
  private static final int MAX_SCAN_PARTS = 4;

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
  BlockInfo[] blocks;

  Map<Integer, BlockFileInfo> blockFiles;
  BlockInfo[] activeByHeight;
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

  NodeIndexLoader(DataDirLayout layout) {
    this.layout = layout;
  }

  void load() throws IOException {
    blockDb = snapshot(layout.blockIndexDir(), snapshotRoot.resolve("blocks-index"));
    try {
      openBlockFiles();
      loadBlockIndex();
      loadBlockFilesAndTxindex();
    } catch (LevelDbReadException e) {
      throw new DataDirException(
          e.dir(),
          e.levelDbReport()
              + ": the database is damaged; let Bitcoin Core repair it (restart it with -reindex)",
          e);
    }
  }

  private void loadBlockIndex() throws IOException {
    blockObfuscation = Obfuscation.read(blockDb);
    List<DiskBlockIndex> records = readBlockRecords(blockObfuscation);
    if (records.isEmpty() && liveSnapshot) {
      // A running node writes its block index to LevelDB only when it flushes (about hourly, and
      // at shutdown): a node started minutes ago may have none on disk yet. Its genesis block is
      // in the first block file all the same, and the follower takes every later block from the
      // node itself (and confirms the genesis with it) instead of from this snapshot.
      records = List.of(unflushedGenesis());
    }
    if (records.isEmpty()) {
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
    ActiveChain chain =
        ActiveChain.compute(records)
            .orElseThrow(
                () ->
                    new DataDirException(
                        layout.blockIndexDir(),
                        "no block with validated transactions and data on disk: the node has not"
                            + " synced any block yet (or everything is marked invalid); let"
                            + " bitcoind sync, then retry"));
    indexBlocks(records, chain);
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

  private void loadBlockFilesAndTxindex() throws IOException {
    checkGenesisOnDisk();

    if (layout.txindexDir().isPresent()) {
      txDb = snapshot(layout.txindexDir().get(), snapshotRoot.resolve("txindex"));
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
                  BlockInfo b = blocksByHash.get(h);
                  txindexTipHeight = b == null ? OptionalInt.empty() : OptionalInt.of(b.height());
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
      return HashedTxLookup.open(txDb, h -> blocksByHash.get(h), liveSnapshot);
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

  /**
   * Scans and decodes every {@code 'b'} record, in key order. Hot path of every start (950,000
   * records on mainnet, each a SHA-256d of its header and a proof-of-work check): the key range is
   * split by the hash's first byte (uniformly random) into one part per core, up to {@link
   * #MAX_SCAN_PARTS}, each scanned by its own LevelDB iterator on its own thread. The parts are
   * concatenated in key order, and when several fail the first one's failure is reported, so the
   * result and the error are those of one sequential scan.
   */
  private List<DiskBlockIndex> readBlockRecords(Obfuscation obf) throws IOException {
    int parts = Math.clamp(Runtime.getRuntime().availableProcessors(), 1, MAX_SCAN_PARTS);
    List<List<DiskBlockIndex>> decoded = new ArrayList<>(parts);
    List<Thread> threads = new ArrayList<>(parts);
    Throwable[] failures = new Throwable[parts];
    for (int p = 0; p < parts; p++) {
      List<DiskBlockIndex> out = new ArrayList<>();
      decoded.add(out);
      byte[] from = p == 0 ? new byte[] {DbKeys.BLOCK_INDEX} : scanBound(p, parts);
      byte[] to = p == parts - 1 ? new byte[] {DbKeys.BLOCK_INDEX + 1} : scanBound(p + 1, parts);
      int part = p;
      Runnable scan =
          () -> {
            try {
              readBlockRecords(obf, from, to, out);
            } catch (Throwable e) { // rethrown below on the calling thread, whatever it is
              failures[part] = e;
            }
          };
      if (p == parts - 1) {
        scan.run(); // the last part on the calling thread
      } else {
        Thread t = new Thread(scan, "bbf-block-index-scan-" + p);
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }
    // every part is waited for, even when interrupted: a failed open closes the LevelDB, which
    // must not happen under an iterator still running
    boolean interrupted = false;
    for (Thread t : threads) {
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    for (Throwable e : failures) {
      switch (e) {
        case null -> {}
        case IOException io -> throw io;
        case RuntimeException r -> throw r;
        case Error r -> throw r;
        default -> throw new IllegalStateException(e);
      }
    }
    int total = 0;
    for (List<DiskBlockIndex> d : decoded) {
      total += d.size();
    }
    List<DiskBlockIndex> all = new ArrayList<>(total);
    for (List<DiskBlockIndex> d : decoded) {
      all.addAll(d);
    }
    return all;
  }

  /** Where part {@code p} of {@code parts} starts: {@code 'b'} and the first byte of the hash. */
  private static byte[] scanBound(int p, int parts) {
    return new byte[] {DbKeys.BLOCK_INDEX, (byte) (p * 256 / parts)};
  }

  private void readBlockRecords(
      Obfuscation obf, byte[] from, byte[] toExclusive, List<DiskBlockIndex> out)
      throws IOException {
    // one per thread: it remembers the target of the last nBits (which changes every 2016 blocks)
    ProofOfWorkCheck pow = new ProofOfWorkCheck();
    blockDb.scan(
        from,
        toExclusive,
        (k, v) -> {
          DiskBlockIndex b = decodeOrReport(() -> DiskBlockIndex.decode(k, obf.plain(v)));
          if (!pow.meetsTarget(b.hash(), LittleEndian.uint32(b.header(), 72))) {
            throw new DataDirException(
                layout.blockIndexDir(),
                "corrupt block index: block "
                    + toDisplayHex(b.hash())
                    + " does not meet its own proof-of-work target (CheckProofOfWork failed);"
                    + " restart bitcoind with -reindex to rebuild it");
          }
          out.add(b);
        });
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

  private interface Decoder<T> {
    T decode() throws CorruptRecordException;
  }

  private <T> T decodeOrReport(Decoder<T> d) throws DataDirException {
    try {
      return d.decode();
    } catch (CorruptRecordException e) {
      throw new DataDirException(
          layout.blockIndexDir(),
          "corrupt block index: "
              + e.getMessage()
              + "; restart bitcoind with -reindex to rebuild it",
          e);
    }
  }

  /** A {@code 'F'} flag of blocks/index; absent = false. */
  private boolean flag(String name) throws IOException {
    byte[] key = DbKeys.flagKey(name);
    byte[] v = blockDb.get(key);
    return v != null
        && decodeOrReport(() -> FlagRecords.decodeFlag(key, blockObfuscation.plain(v)));
  }

  /**
   * Hot path of every start: one BlockInfo per block (950,000 on mainnet), then the lookups by hash
   * and by position over the array, without a map entry per block (see {@link BlocksByHash} and
   * {@link BlocksByPosition}).
   */
  private void indexBlocks(List<DiskBlockIndex> records, ActiveChain chain) {
    blocks = new BlockInfo[records.size()];
    int tipHeight = chain.tipHeight();
    activeByHeight = new BlockInfo[tipHeight + 1];
    int i = 0;
    for (DiskBlockIndex r : records) {
      boolean active = chain.contains(r);
      BlockInfo b =
          new BlockInfo(
              r.hash(),
              r.height(),
              r.status(),
              r.txCount(),
              r.file(),
              r.dataPos(),
              r.undoPos(),
              r.header(),
              active,
              active ? tipHeight - r.height() + 1 : -1);
      blocks[i++] = b;
      if (active) {
        activeByHeight[r.height()] = b;
      }
    }
    blocksByHash = BlocksByHash.of(blocks);
    blocksByPosition = BlocksByPosition.of(blocks);
    tip = activeByHeight[tipHeight];
    tipChainWork = chain.tipWork();
    genesis = activeByHeight[0];
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
