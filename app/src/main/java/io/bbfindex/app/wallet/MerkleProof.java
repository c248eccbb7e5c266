package io.bbfindex.app.wallet;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Electrum protocol's {@code blockchain.transaction.get_merkle} answer, which esplora serves as
 * {@code /tx/:txid/merkle-proof}.
 *
 * @param merkle the branch's sibling hashes from the leaf up, displayed (reversed) hex
 * @param pos the transaction's index in its block
 */
public record MerkleProof(int blockHeight, List<String> merkle, int pos) {

  /** The JSON object, with the protocol's field names. */
  public Map<String, Object> json() {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("block_height", blockHeight);
    o.put("merkle", merkle);
    o.put("pos", pos);
    return o;
  }

  /** The proof of the transaction at {@code pos} of {@code block}. */
  public static MerkleProof of(VerifiedTxids block, int pos) {
    return new MerkleProof(
        block.answer().height(),
        block.tree().branch(pos).stream().map(Object::toString).toList(),
        pos);
  }
}
