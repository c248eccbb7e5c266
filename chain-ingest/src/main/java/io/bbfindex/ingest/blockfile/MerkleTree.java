package io.bbfindex.ingest.blockfile;

import java.security.DigestException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bitcoinj.base.Sha256Hash;

/**
 * Bitcoin's transaction merkle tree (an odd level repeats its last hash) with every level kept, so
 * that a branch, as the Electrum protocol and esplora give a proof, is read off without hashing.
 * Hashes are held in internal (little-endian) byte order, 32 bytes each, one flat array per level:
 * about 64 bytes per leaf in all.
 */
public final class MerkleTree {
  private static final int HASH = 32;

  /** {@code levels[0]} the leaves, the last level the root alone. */
  private final byte[][] levels;

  private MerkleTree(byte[][] levels) {
    this.levels = levels;
  }

  /** Hashes the whole tree over {@code leaves} (at least one), in block order. */
  public static MerkleTree of(List<Sha256Hash> leaves) {
    byte[] level = new byte[leaves.size() * HASH];
    for (int i = 0; i < leaves.size(); i++) {
      System.arraycopy(leaves.get(i).getReversedBytes(), 0, level, i * HASH, HASH);
    }
    return ofInternal(level);
  }

  /**
   * Hashes the whole tree over {@code leaves}: at least one 32-byte hash in internal order, back to
   * back, in block order (the array is kept, not copied).
   */
  public static MerkleTree ofInternal(byte[] leaves) {
    if (leaves.length == 0 || leaves.length % HASH != 0) {
      throw new IllegalArgumentException(
          "a merkle tree needs at least one leaf of 32 bytes: got " + leaves.length + " bytes");
    }
    byte[] level = leaves;
    List<byte[]> all = new ArrayList<>();
    all.add(level);
    while (level.length > HASH) {
      level = parents(level);
      all.add(level);
    }
    return new MerkleTree(all.toArray(byte[][]::new));
  }

  /**
   * The root (internal order) over {@code count >= 1} leaves of {@code leaves} from index {@code
   * from}, without keeping the levels: a block's txids checked against its header while they are
   * computed. One copy of the leaves, folded in place with {@code sha256} (reused by the caller, as
   * a parent costs three SHA-256 blocks, about 110 ns, and a new digest object would add half as
   * much again).
   */
  public static byte[] rootOf(byte[] leaves, int from, int count, MessageDigest sha256) {
    if (count < 1) {
      throw new IllegalArgumentException("a merkle root needs at least one leaf: got " + count);
    }
    byte[] level = Arrays.copyOfRange(leaves, from * HASH, (from + count) * HASH);
    byte[] once = new byte[HASH];
    try {
      for (int width = count; width > 1; width = (width + 1) / 2) {
        for (int i = 0; i < width; i += 2) {
          int right = Math.min(i + 1, width - 1);
          sha256.update(level, i * HASH, HASH);
          sha256.update(level, right * HASH, HASH);
          sha256.digest(once, 0, HASH);
          sha256.update(once);
          // parent i/2 overwrites a slot already read (i/2 <= i)
          sha256.digest(level, i / 2 * HASH, HASH);
        }
      }
    } catch (DigestException e) {
      throw new IllegalStateException("SHA-256 digest into a 32-byte slot failed", e);
    }
    return Arrays.copyOf(level, HASH);
  }

  public int leafCount() {
    return levels[0].length / HASH;
  }

  /** The root, as bitcoinj displays it. */
  public Sha256Hash root() {
    return Sha256Hash.wrapReversed(levels[levels.length - 1]);
  }

  /** The leaves in block order (a new list). */
  public List<Sha256Hash> leaves() {
    List<Sha256Hash> out = new ArrayList<>(leafCount());
    for (int i = 0; i < leafCount(); i++) {
      out.add(hashAt(levels[0], i));
    }
    return out;
  }

  /**
   * Where {@code txid} (internal order) is among the leaves, or -1. A scan of the flat leaf array:
   * no hashing, well under a millisecond for the largest blocks.
   */
  public int position(byte[] txid) {
    byte[] leaves = levels[0];
    for (int i = 0; i < leaves.length; i += HASH) {
      if (Arrays.equals(leaves, i, i + HASH, txid, 0, HASH)) {
        return i / HASH;
      }
    }
    return -1;
  }

  /** The siblings of leaf {@code pos} from the bottom level up; empty for a one-leaf tree. */
  public List<Sha256Hash> branch(int pos) {
    if (pos < 0 || pos >= leafCount()) {
      throw new IllegalArgumentException(
          "position " + pos + " is outside the " + leafCount() + " leaves");
    }
    List<Sha256Hash> branch = new ArrayList<>(levels.length - 1);
    int index = pos;
    for (int l = 0; l < levels.length - 1; l++) {
      int width = levels[l].length / HASH;
      branch.add(hashAt(levels[l], Math.min(index ^ 1, width - 1)));
      index >>>= 1;
    }
    return branch;
  }

  private static Sha256Hash hashAt(byte[] level, int i) {
    return Sha256Hash.wrapReversed(Arrays.copyOfRange(level, i * HASH, i * HASH + HASH));
  }

  private static byte[] parents(byte[] level) {
    int width = level.length / HASH;
    byte[] up = new byte[(width + 1) / 2 * HASH];
    for (int i = 0; i < width; i += 2) {
      int right = Math.min(i + 1, width - 1);
      byte[] parent = Sha256Hash.hashTwice(level, i * HASH, HASH, level, right * HASH, HASH);
      System.arraycopy(parent, 0, up, i / 2 * HASH, HASH);
    }
    return up;
  }
}
