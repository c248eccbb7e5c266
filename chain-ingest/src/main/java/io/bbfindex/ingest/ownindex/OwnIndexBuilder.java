package io.bbfindex.ingest.ownindex;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.records.TxRecordConsumer;
import io.bbfindex.ingest.txindex.BlockDataTxSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Objects;

/**
 * Builds the own txid index of a node from its blk files, in two passes with bounded memory:
 *
 * <ol>
 *   <li>every transaction of every block with data (stale ones too) is hashed from the blk files
 *       ({@link BlockDataTxSource}: {@code xor.dat} removed, each block checked against its header
 *       and nTx) and its key and position spilled to the bucket of its shard ({@link ShardSpill});
 *   <li>shard by shard, the keys are read back, a txid stored twice keeps its active-chain (and
 *       then latest) position, and the shard's retrieval structure is built ({@link
 *       FuseShardBuilder}) and appended to the file ({@link OwnIndexWriter}).
 * </ol>
 *
 * Shards hold about {@value #TARGET_SHARD_KEYS} keys, so a build needs about 60 MB of heap at any
 * chain size besides the block index; the spill takes 24 bytes a txid of temporary disk.
 */
public final class OwnIndexBuilder {

  /** Keys a shard is sized for: 2^20 keys use about 60 MB while built. */
  static final int TARGET_SHARD_KEYS = 1 << 20;

  /** What a build did. */
  public record Report(long keys, long duplicates, int shards, long bytes, long millis) {

    /** Bytes on disk a stored txid. */
    public double bytesPerTxid() {
      return keys == 0 ? 0 : (double) bytes / keys;
    }
  }

  private OwnIndexBuilder() {}

  /**
   * Builds the own index of {@code index}'s node into {@code target} (replaced atomically).
   *
   * @param tempDir where the spill goes (deleted after)
   * @param threads hashing workers
   * @throws IndexReadException if a blk file cannot be read or is not what the block index says
   * @throws IOException if the target or the spill cannot be written
   */
  public static Report build(NodeIndex index, Path target, Path tempDir, int threads)
      throws IOException {
    Objects.requireNonNull(index, "index");
    BlockDataTxSource source =
        new BlockDataTxSource(
            index.blocks(), index.blockFileReader(), index.blocksXorKey(), threads);
    return build(index.blocks(), index.tip(), source, target, tempDir);
  }

  static Report build(
      Collection<BlockInfo> blocks,
      BlockInfo tip,
      BlockDataTxSource source,
      Path target,
      Path tempDir)
      throws IOException {
    long expected =
        blocks.stream()
            .filter(BlockPositions::holdsData)
            .mapToLong(b -> Integer.toUnsignedLong(b.txCount()))
            .sum();
    BlockPositions positions = new BlockPositions(blocks);
    return build(
        expected,
        sink -> {
          try {
            source.forEachTx(0, 256, spiller(sink));
          } catch (UncheckedIOException e) {
            throw e.getCause();
          }
        },
        (file, offset) -> priority(positions, file, offset),
        new OwnIndexHeader(
            new PositionPacking(0, 1), 0, 0, ChainDigest.of(blocks), tip.hash(), tip.height()),
        target,
        tempDir);
  }

  /** Where every txid is: the first pass's input. */
  public interface Positions {
    /** Gives every (txid, position) to {@code sink}. */
    void forEach(PositionSink sink) throws IOException;
  }

  /** Takes one txid (32 bytes at {@code offset}, internal order) and where its bytes start. */
  public interface PositionSink {
    void accept(byte[] txids, int offset, int file, long offsetInFile) throws IOException;
  }

  /** Of two positions of one txid, the one with the higher priority is kept. */
  interface Priority {
    long of(int file, long offsetInFile);
  }

  /**
   * Builds an own index of the txids {@code positions} gives into {@code target} (replaced
   * atomically): the two passes of {@link #build(NodeIndex, Path, Path, int)} over any source of
   * positions, e.g. synthetic ones at mainnet scale. A txid given twice keeps its first position.
   *
   * @param expected about how many txids come (sizes the shards)
   * @param chainDigest what the header names as the chain the index was built from
   * @param tipHash the tip the header names
   * @param tipHeight its height
   */
  public static Report build(
      long expected,
      Positions positions,
      byte[] chainDigest,
      byte[] tipHash,
      int tipHeight,
      Path target,
      Path tempDir)
      throws IOException {
    return build(
        expected,
        positions,
        (file, offset) -> 0L,
        new OwnIndexHeader(new PositionPacking(0, 1), 0, 0, chainDigest, tipHash, tipHeight),
        target,
        tempDir);
  }

  /**
   * @param chain the header's chain digest and tip (its other fields come from the build)
   */
  private static Report build(
      long expected,
      Positions positions,
      Priority priority,
      OwnIndexHeader chain,
      Path target,
      Path tempDir)
      throws IOException {
    long start = System.nanoTime();
    int shardBits = shardBits(expected);
    long[] max = new long[2]; // largest file number and offset spilled
    try (ShardSpill spill = new ShardSpill(tempDir, shardBits)) {
      positions.forEach(
          (txids, offset, file, at) -> {
            max[0] = Math.max(max[0], file);
            max[1] = Math.max(max[1], at);
            spill.add(TxidKeys.k0(txids, offset), TxidKeys.k1(txids, offset), file, at);
          });
      spill.finish();
      CrashPoints.reach(CrashPoints.SHARDS);
      PositionPacking packing = PositionPacking.fitting((int) max[0], max[1]);
      long keys = 0;
      long duplicates = 0;
      try (OwnIndexWriter writer = new OwnIndexWriter(target, 1 << shardBits)) {
        for (int s = 0; s < 1 << shardBits; s++) {
          ShardKeys shard = new ShardKeys((int) Math.min(expected >> shardBits, 1 << 24) + 16);
          spill.read(
              s,
              (k0, k1, file, offset) ->
                  shard.add(k0, k1, packing.pack(file, offset), priority.of(file, offset)));
          duplicates += shard.removeDuplicates();
          writer.add(FuseShardBuilder.build(shard, s, packing.valueBits()), shard.size());
          keys += shard.size();
        }
        writer.commit(
            new OwnIndexHeader(
                packing, shardBits, keys, chain.chainDigest(), chain.tipHash(), chain.tipHeight()));
      }
      long bytes = java.nio.file.Files.size(target);
      return new Report(
          keys, duplicates, 1 << shardBits, bytes, (System.nanoTime() - start) / 1_000_000);
    }
  }

  /** Shards of about {@link #TARGET_SHARD_KEYS} keys for {@code expected} keys: a power of two. */
  static int shardBits(long expected) {
    long shards = Math.max(1, (expected + TARGET_SHARD_KEYS - 1) / TARGET_SHARD_KEYS);
    return Math.min(OwnIndexHeader.MAX_SHARD_BITS, 64 - Long.numberOfLeadingZeros(shards - 1));
  }

  private static TxRecordConsumer spiller(PositionSink sink) {
    return new TxRecordConsumer() {
      @Override
      public void accept(byte[] txid, int file, long dataPos, long txOffset) {
        accept(txid, 0, file, dataPos, txOffset);
      }

      @Override
      public void accept(byte[] txids, int offset, int file, long dataPos, long txOffset) {
        try {
          sink.accept(txids, offset, file, dataPos + BlockFileReader.HEADER_BYTES + txOffset);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }

  /**
   * Which of a txid's positions the index keeps: one on the active chain over a stale one, and of
   * two on the active chain the later (Core's txindex, written in chain order, keeps the BIP30
   * duplicate coinbases' later blocks).
   */
  private static long priority(BlockPositions positions, int file, long offset) {
    return positions
        .blockBefore(file, offset)
        .map(b -> b.onActiveChain() ? 1L + b.height() : 0L)
        .orElse(-1L);
  }
}
