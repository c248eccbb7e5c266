package io.bbfindex.app.wallet;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.ingest.blockfile.MerkleTree;
import java.util.List;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Block;
import org.bitcoinj.core.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * A block read from its block file whose header hashed to the block asked for, whose bytes are its
 * transactions serialized, whose txids recompute the header's merkle root and whose wtxids its
 * witness commitment.
 *
 * @param bytes the stored record (header, tx count, transactions)
 * @param txids in block order, as bitcoinj holds them (display order inside {@link Sha256Hash})
 * @param tree the merkle tree over {@code txids} whose root matched the header's
 * @param wtxids the committed wtxids ({@link VerifiedTxids#wtxids}), or null without a commitment
 */
public record StoredBlock(
    BlockAnswer answer,
    byte[] bytes,
    Block block,
    List<Sha256Hash> txids,
    MerkleTree tree,
    byte @Nullable [] wtxids) {

  /** The block's transactions: it was read from a whole record, never from a header alone. */
  public List<Transaction> transactions() {
    List<Transaction> txs = block.getTransactions();
    if (txs == null) {
      throw new IllegalStateException("a stored block without its transactions");
    }
    return txs;
  }
}
