package io.bbfindex.app.wallet;

import io.bbfindex.ingest.blockfile.MerkleTree;
import java.util.ArrayList;
import java.util.List;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Block;
import org.bitcoinj.core.Transaction;
import org.bitcoinj.core.TransactionWitness;
import org.jspecify.annotations.Nullable;

/**
 * A block's witness commitment (BIP 141), which covers every witness byte of the block: the last
 * coinbase output whose script is {@code OP_RETURN 0xaa21a9ed} and 32 bytes holds SHA-256d(witness
 * merkle root || witness reserved value), the root over the wtxids with the coinbase's taken as
 * zero, the reserved value the coinbase input's one 32-byte witness item. A block without one may
 * hold no witness at all. The txid merkle root in the header does not cover witnesses: without this
 * check, damaged signatures would be served.
 */
final class WitnessCommitment {
  private WitnessCommitment() {}

  /**
   * The wtxids of {@code block}'s transactions (internal order, back to back; the coinbase's its
   * own, which the checked reserved value and txid cover), once checked against its commitment.
   *
   * @return null when the block has no commitment and no transaction carries a witness
   * @throws WalletException 500 {@code store_inconsistent} (counted by {@code checks}) otherwise
   */
  static byte @Nullable [] wtxids(Block block, String where, StoreChecks checks) {
    List<Transaction> txs = block.getTransactions();
    if (txs == null || txs.isEmpty()) {
      throw checks.inconsistent(where + ": the block holds no transaction");
    }
    Transaction coinbase = txs.get(0);
    Sha256Hash commitment = coinbase.isCoinBase() ? coinbase.findWitnessCommitment() : null;
    if (commitment == null) {
      for (int i = 0; i < txs.size(); i++) {
        if (txs.get(i).hasWitnesses()) {
          throw checks.inconsistent(
              where + ": transaction " + i + " carries a witness, but the block commits to none");
        }
      }
      return null;
    }
    TransactionWitness reserved = coinbase.getInput(0).getWitness();
    if (reserved.getPushCount() != 1 || reserved.getPush(0).length != 32) {
      throw checks.inconsistent(
          where + ": the coinbase's witness is not the one 32-byte witness reserved value");
    }
    List<Sha256Hash> leaves = new ArrayList<>(txs.size());
    leaves.add(Sha256Hash.ZERO_HASH);
    byte[] wtxids = new byte[txs.size() * 32];
    System.arraycopy(coinbase.getWTxId().getReversedBytes(), 0, wtxids, 0, 32);
    for (int i = 1; i < txs.size(); i++) {
      Sha256Hash wtxid = txs.get(i).getWTxId();
      leaves.add(wtxid);
      System.arraycopy(wtxid.getReversedBytes(), 0, wtxids, i * 32, 32);
    }
    Sha256Hash root = MerkleTree.of(leaves).root();
    Sha256Hash folded = Sha256Hash.twiceOf(root.getReversedBytes(), reserved.getPush(0));
    if (!folded.equals(commitment)) {
      throw checks.inconsistent(
          where
              + ": its transactions' witnesses fold to the witness commitment "
              + folded
              + ", the coinbase commits to "
              + commitment);
    }
    return wtxids;
  }
}
