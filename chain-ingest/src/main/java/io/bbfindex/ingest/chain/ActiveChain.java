package io.bbfindex.ingest.chain;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.math.BigInteger;
import java.util.Arrays;
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

  private final DiskBlockIndex[] byHeight;
  private final BigInteger tipWork;

  private ActiveChain(DiskBlockIndex[] byHeight, BigInteger tipWork) {
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
    HeightOrder order = HeightOrder.of(blocks);
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
        DiskBlockIndex b = order.get(i);
        DiskBlockIndex parent = order.get(p);
        throw new CorruptRecordException(
            "'b' block index record "
                + toDisplayHex(b.hash())
                + ": height "
                + b.height()
                + " but its parent "
                + toDisplayHex(parent.hash())
                + " has height "
                + parent.height());
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
          && (best < 0 || better(work[i], order.get(i), work[best], order.get(best)))) {
        best = i;
      }
    }
    if (best < 0) {
      return Optional.empty();
    }
    DiskBlockIndex[] chain = new DiskBlockIndex[order.height(best) + 1];
    for (int i = best; i >= 0; i = parents[i]) {
      chain[order.height(i)] = order.get(i);
    }
    return Optional.of(new ActiveChain(chain, work[best]));
  }

  private static boolean better(
      BigInteger aWork, DiskBlockIndex a, BigInteger bWork, DiskBlockIndex b) {
    int c = aWork.compareTo(bWork);
    if (c != 0) {
      return c > 0;
    }
    if (a.file() != b.file()) {
      return a.file() < b.file();
    }
    return a.dataPos() < b.dataPos();
  }

  public int tipHeight() {
    return byHeight.length - 1;
  }

  public DiskBlockIndex tip() {
    return byHeight[byHeight.length - 1];
  }

  /** Total work of the chain, genesis to tip. */
  public BigInteger tipWork() {
    return tipWork;
  }

  /** The active block at {@code height}, or empty above the tip / below 0. */
  public Optional<DiskBlockIndex> at(int height) {
    return height < 0 || height >= byHeight.length
        ? Optional.empty()
        : Optional.of(byHeight[height]);
  }

  @SuppressWarnings("ReferenceEquality") // on purpose: a shortcut, the hashes decide otherwise
  public boolean contains(DiskBlockIndex b) {
    int h = b.height();
    // the same record first: NodeIndex.open asks this of every record, and comparing hashes
    // dereferences one record scattered in memory for each
    return h >= 0
        && h < byHeight.length
        && (byHeight[h] == b || Arrays.equals(byHeight[h].hash(), b.hash()));
  }
}
