package io.bbfindex.ingest.chain;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.BlockTable;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

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
    Optional<ActiveChain> chain = compute(table, order, new NarrowWork(order.size()));
    // null: a work beyond 2^125, on no real chain (mainnet's is about 2^95)
    return chain != null
        ? chain
        : Objects.requireNonNull(compute(table, order, new WideWork(order.size())));
  }

  /** The chain, or null if {@code work} cannot hold a block's cumulative work. */
  private static @Nullable Optional<ActiveChain> compute(
      BlockTable table, HeightOrder order, Work work) throws CorruptRecordException {
    int n = order.size();
    int[] parents = new int[n];
    // set in height order, a parent's before its children's
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
      if (!work.set(i, p, lastProof)) {
        return null;
      }
      boolean rooted = p < 0 ? height == 0 : candidate[p];
      candidate[i] = rooted && BlockStatus.chainCandidate(order.status(i), order.txCount(i));
      if (candidate[i]
          && (best < 0 || better(work.compare(i, best), table, order.row(i), order.row(best)))) {
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
    return Optional.of(new ActiveChain(table, chain, work.get(best)));
  }

  /**
   * The chain {@link #compute} gave for {@code table} before, from what was kept of it ({@link
   * #rows} and {@link #tipWork}): no {@link HeightOrder} and no walk of the work, only checks that
   * cost one pass over the heights. WHY: on a warm start (the block index unchanged, its decoded
   * records kept) ordering the 950,000 rows by height (mainnet) was about 40 % of the open.
   *
   * @param rows the table's row of the active block at each height, genesis first
   * @param tipWork the total work of that chain
   * @return empty if {@code rows} cannot be {@code table}'s chain (a row out of range, or at
   *     another height than its position, the tip not a child of the block below it, a work that is
   *     not positive): the caller computes it instead
   */
  public static Optional<ActiveChain> ofCachedRows(
      BlockTable table, int[] rows, BigInteger tipWork) {
    if (rows.length == 0) {
      return Optional.empty();
    }
    int size = table.size();
    for (int h = 0; h < rows.length; h++) {
      int r = rows[h];
      if (r < 0 || r >= size || table.height(r) != h) {
        return Optional.empty();
      }
    }
    // The chain's nBits by height, gathered in row order: a sequential sweep of the 76 MB of
    // headers. WHY: reading each height's nBits in chain order jumps across them (rows are in hash
    // order), a TLB miss per block: about 0.3 s of every warm start in a VM.
    int[] bitsByHeight = new int[rows.length];
    for (int r = 0; r < size; r++) {
      int h = table.height(r);
      if (h >= 0 && h < rows.length && rows[h] == r) {
        bitsByHeight[h] = table.bits(r);
      }
    }
    // the work again, as a sum of proof * blocks per run of equal nBits (a difficulty lasts 2016
    // blocks): one BigInteger multiplication per run, not an addition per block
    BigInteger work = BigInteger.ZERO;
    long runBits = -1;
    int runStart = 0;
    for (int h = 0; h < rows.length; h++) {
      long bits = Integer.toUnsignedLong(bitsByHeight[h]);
      if (bits != runBits) {
        work = addRun(work, runBits, h - runStart);
        runBits = bits;
        runStart = h;
      }
    }
    work = addRun(work, runBits, rows.length - runStart);
    if (!work.equals(tipWork)) {
      return Optional.empty();
    }
    int tip = rows.length - 1;
    if (tip > 0) {
      byte[] prev = new byte[BlockTable.HASH_BYTES];
      table.copyHeader(rows[tip], 4, prev, 0, BlockTable.HASH_BYTES);
      if (!table.hashEquals(rows[tip - 1], prev, 0)) {
        return Optional.empty();
      }
    }
    return Optional.of(new ActiveChain(table, rows.clone(), tipWork));
  }

  /** {@code work} plus {@code blocks} blocks' proofs of {@code bits} (none if negative). */
  private static BigInteger addRun(BigInteger work, long bits, int blocks) {
    return bits < 0
        ? work
        : work.add(ChainWork.blockProof(bits).multiply(BigInteger.valueOf(blocks)));
  }

  /** The table's row of the active block at each height, genesis first (a copy). */
  public int[] rows() {
    return byHeight.clone();
  }

  /** {@code workOrder}: the sign of a's work minus b's. */
  private static boolean better(int workOrder, BlockTable table, int a, int b) {
    if (workOrder != 0) {
      return workOrder > 0;
    }
    if (table.file(a) != table.file(b)) {
      return table.file(a) < table.file(b);
    }
    return table.dataPos(a) < table.dataPos(b);
  }

  /** The cumulative work of each position of a {@link HeightOrder}. */
  private abstract static sealed class Work permits NarrowWork, WideWork {

    /**
     * Sets position {@code i}'s work to its parent's ({@code p}, or none if negative) plus {@code
     * proof}; false if it does not fit.
     */
    abstract boolean set(int i, int p, BigInteger proof);

    /** The sign of position a's work minus b's. */
    abstract int compare(int a, int b);

    abstract BigInteger get(int i);
  }

  /**
   * Works below 2^125 in two {@code long}s: at every start, 950,000 BigInteger additions (mainnet)
   * and the objects they made, all kept until the chain is known, cost more than the rest of the
   * walk; two long arrays are allocated straight in the old generation.
   */
  private static final class NarrowWork extends Work {
    private static final long MAX_HIGH = 1L << 61;

    private final long[] high;
    private final long[] low;
    private @Nullable BigInteger proof;
    private long proofHigh;
    private long proofLow;

    NarrowWork(int n) {
      high = new long[n];
      low = new long[n];
    }

    @Override
    @SuppressWarnings("ReferenceEquality") // the same proof as the last block's, most often
    boolean set(int i, int p, BigInteger proof) {
      if (proof != this.proof) {
        if (proof.bitLength() > 125) {
          return false;
        }
        proofHigh = proof.shiftRight(64).longValue();
        proofLow = proof.longValue();
        this.proof = proof;
      }
      long l = p < 0 ? 0 : low[p];
      long h = p < 0 ? 0 : high[p];
      long sumLow = l + proofLow;
      long sumHigh = h + proofHigh + (Long.compareUnsigned(sumLow, l) < 0 ? 1 : 0);
      if (sumHigh > MAX_HIGH) { // both parts below 2^62: no overflow of the long
        return false;
      }
      low[i] = sumLow;
      high[i] = sumHigh;
      return true;
    }

    @Override
    int compare(int a, int b) {
      int c = Long.compare(high[a], high[b]);
      return c != 0 ? c : Long.compareUnsigned(low[a], low[b]);
    }

    @Override
    BigInteger get(int i) {
      return BigInteger.valueOf(high[i])
          .shiftLeft(64)
          .add(new BigInteger(Long.toUnsignedString(low[i])));
    }
  }

  /** Works of any size, as BigIntegers. */
  private static final class WideWork extends Work {
    private final BigInteger[] work;

    WideWork(int n) {
      work = new BigInteger[n];
    }

    @Override
    boolean set(int i, int p, BigInteger proof) {
      work[i] = p < 0 ? proof : work[p].add(proof);
      return true;
    }

    @Override
    int compare(int a, int b) {
      return work[a].compareTo(work[b]);
    }

    @Override
    BigInteger get(int i) {
      return work[i];
    }
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
