package io.bbfindex.app.wallet;

import java.util.ArrayList;
import java.util.List;
import org.bitcoinj.base.Sha256Hash;

/**
 * Bitcoin's transaction merkle tree (an odd level repeats its last hash), as the Electrum protocol
 * and esplora give a proof: the sibling hashes from the leaf up to the root's children.
 */
public final class MerkleBranch {
  private MerkleBranch() {}

  /** The siblings of leaf {@code pos} from the bottom level up; empty for a one-leaf tree. */
  public static List<Sha256Hash> of(List<Sha256Hash> leaves, int pos) {
    if (pos < 0 || pos >= leaves.size()) {
      throw new IllegalArgumentException(
          "position " + pos + " is outside the " + leaves.size() + " leaves");
    }
    List<Sha256Hash> branch = new ArrayList<>();
    List<Sha256Hash> level = leaves;
    int index = pos;
    while (level.size() > 1) {
      int sibling = index ^ 1;
      branch.add(level.get(Math.min(sibling, level.size() - 1)));
      level = parents(level);
      index >>>= 1;
    }
    return branch;
  }

  /** The root over {@code leaves} (at least one). */
  public static Sha256Hash root(List<Sha256Hash> leaves) {
    if (leaves.isEmpty()) {
      throw new IllegalArgumentException("a merkle tree needs at least one leaf");
    }
    List<Sha256Hash> level = leaves;
    while (level.size() > 1) {
      level = parents(level);
    }
    return level.get(0);
  }

  private static List<Sha256Hash> parents(List<Sha256Hash> level) {
    List<Sha256Hash> up = new ArrayList<>((level.size() + 1) / 2);
    for (int i = 0; i < level.size(); i += 2) {
      Sha256Hash left = level.get(i);
      Sha256Hash right = level.get(Math.min(i + 1, level.size() - 1));
      // hashes concatenate in internal (little-endian) byte order
      up.add(
          Sha256Hash.wrapReversed(
              Sha256Hash.hashTwice(
                  left.getReversedBytes(), 0, 32, right.getReversedBytes(), 0, 32)));
    }
    return up;
  }
}
