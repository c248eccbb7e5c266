package io.bbfindex.ingest.chain;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.LittleEndian;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

  private final DiskBlockIndex[] byHeight;
  private final BigInteger tipWork;

  private ActiveChain(DiskBlockIndex[] byHeight, BigInteger tipWork) {
    this.byHeight = byHeight;
    this.tipWork = tipWork;
  }

  /**
   * @throws CorruptRecordException if heights are inconsistent with the parent links
   * @return empty if no block qualifies (e.g. a node that only has headers)
   */
  public static Optional<ActiveChain> compute(Collection<DiskBlockIndex> blocks)
      throws CorruptRecordException {
    Map<ByteBuffer, Node> byHash = new HashMap<>(blocks.size() * 2);
    List<Node> nodes = new ArrayList<>(blocks.size());
    for (DiskBlockIndex b : blocks) {
      Node n = new Node(b);
      nodes.add(n);
      byHash.put(ByteBuffer.wrap(b.hash()), n);
    }
    nodes.sort(Comparator.comparingInt(n -> n.block.height()));
    Node best = null;
    for (Node n : nodes) {
      DiskBlockIndex b = n.block;
      Node parent = byHash.get(ByteBuffer.wrap(b.header(), 4, 32));
      if (parent != null && parent.block.height() != b.height() - 1) {
        throw new CorruptRecordException(
            "'b' block index record "
                + toDisplayHex(b.hash())
                + ": height "
                + b.height()
                + " but its parent "
                + toDisplayHex(parent.block.hash())
                + " has height "
                + parent.block.height());
      }
      n.parent = parent;
      BigInteger own = ChainWork.blockProof(LittleEndian.uint32(b.header(), 72)); // nBits
      n.work = parent == null ? own : parent.work.add(own);
      boolean rooted = parent == null ? b.height() == 0 : parent.candidate;
      n.candidate = rooted && BlockStatus.chainCandidate(b.status(), b.txCount());
      if (n.candidate && (best == null || better(n, best))) {
        best = n;
      }
    }
    if (best == null) {
      return Optional.empty();
    }
    DiskBlockIndex[] chain = new DiskBlockIndex[best.block.height() + 1];
    for (Node n = best; n != null; n = n.parent) {
      chain[n.block.height()] = n.block;
    }
    return Optional.of(new ActiveChain(chain, best.work));
  }

  private static boolean better(Node a, Node b) {
    int c = a.work.compareTo(b.work);
    if (c != 0) {
      return c > 0;
    }
    if (a.block.file() != b.block.file()) {
      return a.block.file() < b.block.file();
    }
    return a.block.dataPos() < b.block.dataPos();
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

  public boolean contains(DiskBlockIndex b) {
    int h = b.height();
    return h >= 0 && h < byHeight.length && Arrays.equals(byHeight[h].hash(), b.hash());
  }

  private static final class Node {
    final DiskBlockIndex block;
    @Nullable Node parent;
    // set in height order, a parent's before its children's (compute)
    BigInteger work = BigInteger.ZERO;
    boolean candidate;

    Node(DiskBlockIndex block) {
      this.block = block;
    }
  }
}
