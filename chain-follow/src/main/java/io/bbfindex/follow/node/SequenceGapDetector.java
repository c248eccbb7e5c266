package io.bbfindex.follow.node;

/**
 * Checks the ZMQ publisher's 4-byte per-topic counter: each message must carry the previous one's
 * counter + 1 (mod 2^32). A jump means messages were dropped (high-water mark, reconnect) and a
 * restart of the node starts again from 0; both mean the mempool view may have missed events and
 * must be resynced (Core's recipe, BITCOIN-FORMATS.md section 10). Not thread-safe.
 */
public final class SequenceGapDetector {
  private long last = -1;

  /**
   * Returns {@code true} if {@code counter} does not follow the previous message's (the first never
   * is a gap).
   */
  public boolean gapBefore(long counter) {
    boolean gap = last >= 0 && counter != ((last + 1) & 0xffff_ffffL);
    last = counter;
    return gap;
  }

  /** Forgets the previous counter (after a resync started on other grounds). */
  public void reset() {
    last = -1;
  }
}
