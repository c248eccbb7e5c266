package io.bbfindex.ingest.ownindex;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.TxRecordConsumer;
import io.bbfindex.ingest.txindex.BlockDataTxSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a pruning node's fingerprint store must hold: every block the node still has data of ({@link
 * #extend}: read from the blk files while they are there), and the blocks it pruned before
 * bbf-index saw them ({@link #unindexedPruned}: the "behind the node's prune horizon" state, which
 * {@code --backfill-pruned} repairs).
 */
public final class FingerprintCapture {

  /** What {@link #extend} did. */
  public record Report(int blocks, long txids, int parts, long millis) {}

  private FingerprintCapture() {}

  /**
   * Adds a part (or several, of at most 4,096 blocks each) for every block with data that no part
   * covers yet, stale blocks included, read from the blk files as the own index reads them ({@code
   * xor.dat} removed, each block checked against its header).
   */
  public static Report extend(NodeIndex node, FingerprintStore store, Path tempDir, int threads)
      throws IOException {
    long start = System.nanoTime();
    List<BlockInfo> fresh = new ArrayList<>();
    for (BlockInfo b : node.blocks()) {
      if (BlockPositions.holdsData(b) && !store.covers(b.hash())) {
        fresh.add(b);
      }
    }
    fresh.sort(Comparator.comparingInt(BlockInfo::height));
    long txids = 0;
    int parts = 0;
    for (int from = 0; from < fresh.size(); from += FingerprintFormat.MAX_BLOCKS) {
      List<BlockInfo> chunk =
          fresh.subList(from, Math.min(fresh.size(), from + FingerprintFormat.MAX_BLOCKS));
      txids += appendFromBlkFiles(node, store, chunk, tempDir, threads);
      parts++;
    }
    return new Report(fresh.size(), txids, parts, (System.nanoTime() - start) / 1_000_000);
  }

  private static long appendFromBlkFiles(
      NodeIndex node, FingerprintStore store, List<BlockInfo> chunk, Path tempDir, int threads)
      throws IOException {
    List<FingerprintBlock> table = new ArrayList<>(chunk.size());
    Map<Long, Integer> ordinals = new HashMap<>();
    long expected = 0;
    for (BlockInfo b : chunk) {
      ordinals.put(place(b.file(), b.dataPos()), table.size());
      table.add(block(b));
      expected += Integer.toUnsignedLong(b.txCount());
    }
    BlockDataTxSource source =
        new BlockDataTxSource(chunk, node.blockFileReader(), node.blocksXorKey(), threads);
    return store.append(
        table,
        expected,
        sink -> {
          try {
            source.forEachTx(0, 256, feeding(sink, ordinals));
          } catch (UncheckedIOException e) {
            throw e.getCause();
          }
        },
        tempDir);
  }

  /** A block as a part's table holds it: a txid of two blocks keeps the active, then later one. */
  public static FingerprintBlock block(BlockInfo b) {
    return new FingerprintBlock(b.hash(), b.height(), b.onActiveChain() ? 1L + b.height() : 0L);
  }

  private static long place(int file, long dataPos) {
    return (long) file << 40 | dataPos;
  }

  private static TxRecordConsumer feeding(
      FingerprintStore.TxidSink sink, Map<Long, Integer> ordinals) {
    return new TxRecordConsumer() {
      @Override
      public void accept(byte[] txid, int file, long dataPos, long txOffset) {
        accept(txid, 0, file, dataPos, txOffset);
      }

      @Override
      public void accept(byte[] txids, int offset, int file, long dataPos, long txOffset) {
        Integer ordinal = ordinals.get(place(file, dataPos));
        if (ordinal == null) {
          throw new IllegalStateException("a tx of an unexpected block at " + file + "/" + dataPos);
        }
        try {
          sink.accept(txids, offset, ordinal);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }

  /**
   * The active chain's blocks the node no longer has data of and no part covers, by height: their
   * transactions are unknown to bbf-index (it started after the node pruned them, or their part was
   * damaged), so lookups of them would answer 404 until they are fetched back.
   */
  public static List<BlockInfo> unindexedPruned(
      Collection<BlockInfo> blocks, FingerprintStore store) {
    List<BlockInfo> out = new ArrayList<>();
    for (BlockInfo b : blocks) {
      if (b.onActiveChain() && !BlockPositions.holdsData(b) && !store.covers(b.hash())) {
        out.add(b);
      }
    }
    out.sort(Comparator.comparingInt(BlockInfo::height));
    return out;
  }
}
