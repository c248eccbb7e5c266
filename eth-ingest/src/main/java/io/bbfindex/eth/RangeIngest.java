package io.bbfindex.eth;

import java.io.IOException;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The range ingest: final blocks, a range of {@code 2^rangeBits} at a time, from the tip (when it
 * already holds them) or from the node, into the {@link History}, which is checkpointed every 30 s
 * and at the end. The range is published to the history before its blocks leave the tip, so a
 * lookup never misses a transaction moving along.
 */
final class RangeIngest {
  private static final long CHECKPOINT_NANOS = 30_000_000_000L;

  private final EthConfig config;
  private final EthRpc rpc;
  private final History history;
  private final Tip tip;

  RangeIngest(EthConfig config, EthRpc rpc, History history, Tip tip) {
    this.config = config;
    this.rpc = rpc;
    this.history = history;
    this.tip = tip;
  }

  /**
   * Adds every final range the history lacks, up to the one holding {@code finalized}, then makes
   * them durable; stops early once {@code closing} says so.
   *
   * @return ranges added
   */
  int addFinalRanges(long finalized, BooleanSupplier closing, Consumer<String> progress)
      throws IOException {
    int bits = config.rangeBits();
    long target = (finalized + 1) >> bits;
    int added = 0;
    long started = System.nanoTime();
    long lastCheckpoint = started;
    long lastReport = started;
    long txs = 0;
    while (history.rangeCount() < target && !closing.getAsBoolean()) {
      long first = history.nextBlock();
      long last = first + (1L << bits) - 1;
      List<BlockTxs> blocks = tip.blocksFrom(first);
      if (blocks.size() < 1 << bits) {
        blocks = rpc.blocks(first, last);
      } else {
        blocks = blocks.subList(0, 1 << bits);
      }
      history.append(blocks);
      tip.removeBelow(history.nextBlock());
      added++;
      txs += blocks.stream().mapToInt(b -> b.txs().size()).sum();
      long now = System.nanoTime();
      if (now - lastCheckpoint > CHECKPOINT_NANOS) {
        history.checkpoint();
        lastCheckpoint = now;
      }
      if (now - lastReport > 5_000_000_000L) {
        double secs = (now - started) / 1e9;
        progress.accept(
            "eth: range %d of %d (blocks to %d), %.0f blocks/s, %.0f txs/s"
                .formatted(
                    history.rangeCount(),
                    target,
                    history.nextBlock() - 1,
                    ((long) added << bits) / secs,
                    txs / secs));
        lastReport = now;
      }
    }
    history.checkpoint();
    return added;
  }
}
