package io.bbfindex.app.wallet;

import io.bbfindex.app.lookup.BlockAnswer;

/**
 * The txids of a block read from its block file, whose header hashed to the block's hash and whose
 * merkle tree recomputed the header's merkle root: only such lists are cached and proofs are only
 * served from them.
 *
 * @param header the block's 80 stored header bytes, which hashed to the block's hash
 */
public record VerifiedTxids(BlockAnswer answer, byte[] header, MerkleTree tree) {}
