package io.bbfindex.ingest;

import io.bbfindex.ingest.chain.ActiveChain;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.BlockTable;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the {@link BlockIndexCache} in step with a running node while the index is open.
 *
 * <p>WHY: the cache is taken at a start only if the node's block index holds what it held when the
 * cache was written. A node writes its block index at each flush (about hourly), so a cache written
 * only at a start would be stale at the restart of any server that ran longer than that, and every
 * such restart would scan the whole index again. Once a minute this compares the digest of the
 * node's database as it is now ({@link LevelDbSnapshot#contentDigestOf}: the MANIFEST and logs
 * read, the tables listed, nothing copied; a few milliseconds) with the one kept; only when it
 * changed does it take a snapshot, scan it on one thread (not to compete with the answers for
 * cores) and write the cache. A failure is logged and tried again at the next tick; it never
 * touches the open index, whose answers come from its own snapshot and the follower.
 */
final class BlockIndexCacheRefresher implements AutoCloseable {

  static final Duration DEFAULT_PERIOD = Duration.ofMinutes(1);

  private static final System.Logger LOG =
      System.getLogger(BlockIndexCacheRefresher.class.getName());

  private final Path nodeIndexDir;
  private final Path work;
  private final BlockIndexCache cache;
  private final ScheduledExecutorService timer;
  private byte[] kept;
  private int refreshes;

  private BlockIndexCacheRefresher(
      Path nodeIndexDir, Path work, BlockIndexCache cache, byte[] kept) {
    this.nodeIndexDir = nodeIndexDir;
    this.work = work;
    this.cache = cache;
    this.kept = kept.clone();
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("bbf-block-index-cache-refresh").daemon().factory());
  }

  /**
   * Starts checking {@code nodeIndexDir} every {@code period}.
   *
   * @param kept the digest of the snapshot the cache holds now
   */
  static BlockIndexCacheRefresher start(
      Path nodeIndexDir, Path work, BlockIndexCache cache, byte[] kept, Duration period) {
    BlockIndexCacheRefresher r = new BlockIndexCacheRefresher(nodeIndexDir, work, cache, kept);
    r.timer.scheduleWithFixedDelay(
        r::tick, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    return r;
  }

  /** How many times the cache was written anew (for tests). */
  synchronized int refreshes() {
    return refreshes;
  }

  /** One check, and a refresh if the node's block index changed; never throws. */
  synchronized void tick() {
    try {
      if (Arrays.equals(LevelDbSnapshot.contentDigestOf(nodeIndexDir), kept)) {
        return;
      }
      kept = refresh();
      refreshes++;
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "could not bring the block index cache in step with "
              + nodeIndexDir
              + " (tried again in a minute): "
              + e);
    }
  }

  /** Snapshots the node's block index, scans it and writes the cache: the digest written. */
  private byte[] refresh() throws IOException {
    try (Scratch.OwnedDir owner = Scratch.createSnapshotDir(work)) {
      try (LevelDbSnapshot db =
          LevelDbSnapshot.open(nodeIndexDir, owner.dir().resolve("blocks-index"))) {
        List<DiskBlockIndex> records =
            BlockRecordScan.read(db, Obfuscation.read(db), nodeIndexDir, 1);
        byte[] digest = db.contentDigest();
        if (!records.isEmpty()) {
          BlockTable table = BlockTable.of(records);
          // no chain (nothing synced yet) or heights that contradict the parent links: nothing
          // kept, the next start scans and says so
          Optional<ActiveChain> chain;
          try {
            chain = ActiveChain.compute(table);
          } catch (CorruptRecordException e) {
            chain = Optional.empty();
          }
          if (chain.isPresent()) {
            cache.write(digest, table, chain.get());
          }
        }
        return digest;
      } finally {
        NodeIndex.deleteTree(owner.dir());
      }
    }
  }

  /**
   * Stops the checks, waiting for one that runs (a scan: a few seconds at most), even when
   * interrupted ({@link java.util.concurrent.ExecutorService#close}): the work directory it writes
   * into may be deleted right after.
   */
  @Override
  public void close() {
    timer.shutdownNow();
    timer.close();
  }
}
