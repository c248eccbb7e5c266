package io.bbfindex.ingest.testing;

import io.bbfindex.ingest.DataDirException;
import io.bbfindex.ingest.leveldb.LevelDbOpenException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.BlockLocator;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.DiskTxPos;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.records.TxIndexScan;
import io.bbfindex.ingest.records.TxRecordConsumer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A bare txindex LevelDB ({@code indexes/txindex} of Core >= 0.17) without its data directory: no
 * block index, no blk files. It exists for the synthetic txindexes of {@link SyntheticTxIndex}
 * (tests and the benchmarks module), which only need the {@code 't'} rows and the {@code 'B'}
 * locator decoded by the same code as {@link io.bbfindex.ingest.NodeIndex} ({@link TxIndexScan},
 * {@link DiskTxPos}, {@link BlockLocator}). Like {@link io.bbfindex.ingest.NodeIndex}, it reads a
 * private snapshot, never the directory.
 */
public final class TxIndexOnly implements AutoCloseable {

  private final Path snapshotRoot;
  private final LevelDbSnapshot db;
  private final Obfuscation obfuscation;

  private TxIndexOnly(Path snapshotRoot, LevelDbSnapshot db, Obfuscation obfuscation) {
    this.snapshotRoot = snapshotRoot;
    this.db = db;
    this.obfuscation = obfuscation;
  }

  /**
   * Snapshots and opens {@code txindexDir}.
   *
   * @throws DataDirException naming the directory if it is not a readable LevelDB
   */
  public static TxIndexOnly open(Path txindexDir, Path workDir) throws DataDirException {
    Objects.requireNonNull(txindexDir, "txindexDir");
    Objects.requireNonNull(workDir, "workDir");
    Path root = null;
    LevelDbSnapshot db = null;
    try {
      Files.createDirectories(workDir);
      root = Files.createTempDirectory(workDir.toAbsolutePath(), "txindex-snapshot-");
      db = LevelDbSnapshot.open(txindexDir, root.resolve("txindex"));
      return new TxIndexOnly(root, db, Obfuscation.read(db));
    } catch (IOException e) {
      try {
        if (db != null) {
          db.close();
        }
        if (root != null) {
          FileTrees.deleteTree(root);
        }
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e instanceof DataDirException d
          ? d
          : e instanceof LevelDbOpenException o
              ? new DataDirException(o.dir(), o.problem(), o)
              : new DataDirException(
                  txindexDir, "is not a readable txindex LevelDB: " + e.getMessage(), e);
    }
  }

  /** Every {@code 't'} row in txid order (see {@link io.bbfindex.ingest.NodeIndex#forEachTx}). */
  public void forEachTx(TxRecordConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    try {
      TxIndexScan.scan(db, obfuscation, consumer);
    } catch (IOException e) {
      throw new IndexReadException(
          "txindex scan of " + db.source() + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * The rows whose txid's first byte is in {@code [fromFirstByte, toFirstByte)} (see NodeIndex).
   */
  public void forEachTx(int fromFirstByte, int toFirstByte, TxRecordConsumer consumer) {
    Objects.requireNonNull(consumer, "consumer");
    try {
      TxIndexScan.scan(db, obfuscation, fromFirstByte, toFirstByte, consumer);
    } catch (IOException e) {
      throw new IndexReadException(
          "txindex scan of " + db.source() + " failed: " + e.getMessage(), e);
    }
  }

  /** How the rows' values are XORed (a second reader of the same rows decodes them with it). */
  public Obfuscation obfuscation() {
    return obfuscation;
  }

  /** One {@code 't'} row, decoded; empty when absent. */
  public Optional<DiskTxPos> find(byte[] txidInternal) {
    byte[] key = DbKeys.txKey(txidInternal);
    try {
      byte[] raw = db.get(key);
      return raw == null
          ? Optional.empty()
          : Optional.of(DiskTxPos.decode(key, obfuscation.plain(raw)));
    } catch (IOException e) {
      throw new IndexReadException(
          "txindex row of " + db.source() + " is corrupt: " + e.getMessage(), e);
    }
  }

  /** The {@code 'B'} locator, if the index ever committed. */
  public Optional<BlockLocator> locator() {
    byte[] key = {DbKeys.BEST_BLOCK};
    try {
      byte[] raw = db.get(key);
      return raw == null
          ? Optional.empty()
          : Optional.of(BlockLocator.decode(key, obfuscation.plain(raw)));
    } catch (IOException e) {
      throw new IndexReadException(
          "'B' locator of " + db.source() + " is corrupt: " + e.getMessage(), e);
    }
  }

  /** The snapshot's Bloom filter verdict per table ({@link LevelDbSnapshot#filterVerdicts}). */
  public List<String> filterVerdicts() {
    return db.filterVerdicts();
  }

  /** Finds answered "absent" by the tables' Bloom filters ({@link LevelDbSnapshot#refutedGets}). */
  public long refutedGets() {
    return db.refutedGets();
  }

  @Override
  public void close() throws IOException {
    try {
      db.close();
    } finally {
      FileTrees.deleteTree(snapshotRoot);
    }
  }
}
