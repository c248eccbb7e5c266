package io.bbfindex.app.wallet;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.ingest.blockfile.MerkleTree;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The txids and wtxids of a block read from its block file, whose header hashed to the block's
 * hash, whose merkle tree recomputed the header's merkle root and whose wtxids folded to its
 * witness commitment: only such lists are cached, and proofs and witness checks are only made with
 * them.
 *
 * @param header the block's 80 stored header bytes, which hashed to the block's hash
 * @param wtxids the wtxids in block order (internal order, back to back; the coinbase's its own),
 *     or null when the block commits to no witness (then no transaction of it carries one)
 */
public record VerifiedTxids(
    BlockAnswer answer, byte[] header, MerkleTree tree, byte @Nullable [] wtxids) {

  /** The committed wtxid (internal order) of the transaction at {@code pos}, or null if none. */
  public byte @Nullable [] wtxid(int pos) {
    return wtxids == null ? null : Arrays.copyOfRange(wtxids, pos * 32, pos * 32 + 32);
  }
}
