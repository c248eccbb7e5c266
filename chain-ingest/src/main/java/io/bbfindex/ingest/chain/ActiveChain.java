package io.bbfindex.ingest.chain;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.BlockTable;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Optional;

/**
 * The chain Bitcoin Core considers active, derived from the block index alone (there is no tip key
 * in {@code blocks/index}; chainstate's best block is obfuscated and a separate DB).
 *
 * <p>As Core's {@code FindMostWorkChain}: among blocks that, with all their ancestors, are not
 * failed, have validity >= TRANSACTIONS and had their transactions (see {@link
 * BlockStatus#chainCandidate}), take the one with the most cumulative work (sum of {@link
 * ChainWork#blockProof} down to genesis), then walk hashPrev back. Ties in work (a fork of equal
 * length) are broken as Core does in spirit, by arrival: Core keeps the block it received first
 * (nSequenceId, not stored), which we approximate by the lower (file, dataPos), blocks being
 * appended to the files as they arrive.
 *
 * <p>Also an integrity check: every block's height must be its parent's plus one, so a garbled
 * height in a 'b' record (which the header hash cannot catch) fails here.
 */
public final class ActiveChain {

  private final BlockTable table;

  /** The table's row of the active block at each height. */
  private final int[] byHeight;

  private final BigInteger tipWork;

  private ActiveChain(BlockTable table, int[] byHeight, BigInteger tipWork) {
    this.table = table;
    this.byHeight = byHeight;
    this.tipWork = tipWork;
  }

  /**
   * Hot path of every start (950,000 records on mainnet): no sort, no map of every hash in the
   * usual case ({@link HeightOrder}), and one proof computed per nBits run, not per block.
   *
   * @param blocks records with distinct hashes (a block index's keys)
   * @throws CorruptRecordException if heights are inconsistent with the parent links
   * @return empty if no block qualifies (e.g. a node that only has headers)
   */
  public static Optional<ActiveChain> compute(Collection<DiskBlockIndex> blocks)
      throws CorruptRecordException {
    return compute(BlockTable.of(blocks));
  }

  /**
   * As {@link #compute(Collection)}, over a table's rows (no record object made).
   *
   * @param table rows with distinct hashes (a block index's keys)
   * @throws CorruptRecordException if heights are inconsistent with the parent links
   * @return empty if no block qualifies (e.g. a node that only has headers)
   */
  public static Optional<ActiveChain> compute(BlockTable table) throws CorruptRecordException {
    HeightOrder order = HeightOrder.of(table);
    int n = order.size();
    int[] parents = new int[n];
    // set in height order, a parent's before its children's
    BigInteger[] work = new BigInteger[n];
    boolean[] candidate = new boolean[n];
    long lastBits = -1;
    BigInteger lastProof = BigInteger.ZERO;
    int best = -1;
    for (int i = 0; i < n; i++) {
      int height = order.height(i);
      int p = order.parentOf(i);
      if (p >= 0 && order.height(p) != height - 1) {
        int b = order.row(i);
        int parent = order.row(p);
        throw new CorruptRecordException(
            "'b' block index record "
                + toDisplayHex(table.hash(b))
                + ": height "
                + table.height(b)
                + " but its parent "
                + toDisplayHex(table.hash(parent))
                + " has height "
                + table.height(parent));
      }
      parents[i] = p;
      long bits = order.bits(i);
      if (bits != lastBits) { // the difficulty changes every 2016 blocks: a BigInteger division
        lastProof = ChainWork.blockProof(bits);
        lastBits = bits;
      }
      work[i] = p < 0 ? lastProof : work[p].add(lastProof);
      boolean rooted = p < 0 ? height == 0 : candidate[p];
      candidate[i] = rooted && BlockStatus.chainCandidate(order.status(i), order.txCount(i));
      if (candidate[i]
          && (best < 0 || better(work[i], table, order.row(i), work[best], order.row(best)))) {
        best = i;
      }
    }
    if (best < 0) {
      return Optional.empty();
    }
    int[] chain = new int[order.height(best) + 1];
    for (int i = best; i >= 0; i = parents[i]) {
      chain[order.height(i)] = order.row(i);
    }
    return Optional.of(new ActiveChain(table, chain, work[best]));
  }

  private static boolean better(
      BigInteger aWork, BlockTable table, int a, BigInteger bWork, int b) {
    int c = aWork.compareTo(bWork);
    if (c != 0) {
      return c > 0;
    }
    if (table.file(a) != table.file(b)) {
      return table.file(a) < table.file(b);
    }
    return table.dataPos(a) < table.dataPos(b);
  }

  public int tipHeight() {
    return byHeight.length - 1;
  }

  public DiskBlockIndex tip() {
    return table.record(byHeight[byHeight.length - 1]);
  }

  /** The table's row of the active block at {@code height}. */
  public int rowAt(int height) {
    return byHeight[height];
  }

  /** Total work of the chain, genesis to tip. */
  public BigInteger tipWork() {
    return tipWork;
  }

  /** The active block at {@code height}, or empty above the tip / below 0. */
  public Optional<DiskBlockIndex> at(int height) {
    return height < 0 || height >= byHeight.length
        ? Optional.empty()
        : Optional.of(table.record(byHeight[height]));
  }

  public boolean contains(DiskBlockIndex b) {
    int h = b.height();
    return h >= 0
        && h < byHeight.length
        && b.hash().length == BlockTable.HASH_BYTES
        && table.hashEquals(byHeight[h], b.hash(), 0);
  }

  /** Whether the table's row {@code r} is on the chain (it, or a row with its hash). */
  public boolean containsRow(int r) {
    int h = table.height(r);
    // the same row first: NodeIndex.open asks this of every row
    return h >= 0 && h < byHeight.length && (byHeight[h] == r || table.sameHash(byHeight[h], r));
  }
}
