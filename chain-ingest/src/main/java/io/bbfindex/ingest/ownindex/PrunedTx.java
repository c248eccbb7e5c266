package io.bbfindex.ingest.ownindex;

/**
 * A txid found among the fingerprints of blocks kept before the node pruned them: the block (its
 * hash, internal order, and height when it was recorded). The transaction's bytes are gone with the
 * block; what is left is where it was confirmed.
 */
public record PrunedTx(byte[] blockHash, int height) {}
