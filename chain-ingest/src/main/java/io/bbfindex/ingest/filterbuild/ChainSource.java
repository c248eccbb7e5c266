package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.BlockFileInfo;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockTable;
import io.bbfindex.ingest.txindex.BlockDataTxSource;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the builder reads from a node: the block index (for sizing and the block-hash filter), the
 * tips (for the manifest and change detection) and range scans of the txindex. {@link
 * #of(NodeIndex)} is the real thing; tests wrap it to show the builder a block index that
 * undercounts or a txindex with rows of unknown files.
 */
public interface ChainSource extends TxRangeSource {

  Path datadir();

  Collection<BlockInfo> blocks();

  /**
   * The same blocks as {@link #blocks}, as the node index's columns, for a pass over all of them
   * that should make no object per block; empty where there are none (read {@link #blocks}).
   */
  default Optional<BlockTable> blockTable() {
    return Optional.empty();
  }

  Map<Integer, BlockFileInfo> blockFiles();

  int tipHeight();

  byte[] tipHash();

  OptionalInt txindexTipHeight();

  Optional<BlockInfo> activeBlockAt(int height);

  /**
   * Whether {@link #forEachTx} may be split into txid ranges scanned at once (a {@code 't'}-row
   * scan); false for txids computed from block data, which read every blk file per call.
   */
  default boolean splitsByTxidRange() {
    return true;
  }

  /** The node's index as a source (no copy; the index must stay open during the build). */
  static ChainSource of(NodeIndex index) {
    Objects.requireNonNull(index, "index");
    // the txid source: 't' rows when the txindex stores every txid, else the blk files
    // (hashed/mixed)
    BlockDataTxSource blockData =
        index.txindexLayout().storesEveryTxid()
            ? null
            : new BlockDataTxSource(
                index.blocks(),
                index.blockFileReader(),
                index.blocksXorKey(),
                Runtime.getRuntime().availableProcessors());
    return new ChainSource() {
      @Override
      public Path datadir() {
        return index.datadir();
      }

      @Override
      public Collection<BlockInfo> blocks() {
        return index.blocks();
      }

      @Override
      public Optional<BlockTable> blockTable() {
        return Optional.of(index.blockTable());
      }

      @Override
      public Map<Integer, BlockFileInfo> blockFiles() {
        return index.blockFiles();
      }

      @Override
      public int tipHeight() {
        return index.tipHeight();
      }

      @Override
      public byte[] tipHash() {
        return index.tipHash();
      }

      @Override
      public OptionalInt txindexTipHeight() {
        return index.txindexTipHeight();
      }

      @Override
      public Optional<BlockInfo> activeBlockAt(int height) {
        return index.activeBlockAt(height);
      }

      @Override
      public void forEachTx(
          int fromFirstByte,
          int toFirstByte,
          io.bbfindex.ingest.records.TxRecordConsumer consumer) {
        if (blockData != null) {
          blockData.forEachTx(fromFirstByte, toFirstByte, consumer);
        } else {
          index.forEachTx(fromFirstByte, toFirstByte, consumer);
        }
      }

      @Override
      public boolean splitsByTxidRange() {
        return blockData == null;
      }
    };
  }
}
