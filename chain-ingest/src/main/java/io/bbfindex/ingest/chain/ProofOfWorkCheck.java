package io.bbfindex.ingest.chain;

import org.jspecify.annotations.Nullable;

/**
 * {@link ChainWork#meetsTarget} for a stream of headers, as the block index's load checks every
 * record (950,000 on mainnet at each start): the target of the last {@code nBits} seen is kept, and
 * the difficulty changes only every 2016 blocks. Not thread-safe: one per scanning thread.
 */
public final class ProofOfWorkCheck {

  private long lastBits = -1;

  /** The last nBits' target, 32 bytes little-endian; null when it is not a valid target. */
  private byte @Nullable [] lastTarget;

  /** As {@link ChainWork#meetsTarget}, same answer. */
  public boolean meetsTarget(byte[] hashInternal, long nBits) {
    if (nBits != lastBits) {
      lastTarget = ChainWork.targetLittleEndian(nBits);
      lastBits = nBits;
    }
    return lastTarget != null && ChainWork.atMost(hashInternal, lastTarget);
  }
}
