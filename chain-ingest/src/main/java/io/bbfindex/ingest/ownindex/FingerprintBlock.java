package io.bbfindex.ingest.ownindex;

/**
 * A block of a fingerprint part's block table.
 *
 * @param hash internal byte order, 32 bytes
 * @param height its height
 * @param priority which of a txid's blocks a part keeps when the txid is in two of them: the higher
 *     (active chain over stale, then the later), as the own index does
 */
public record FingerprintBlock(byte[] hash, int height, long priority) {}
