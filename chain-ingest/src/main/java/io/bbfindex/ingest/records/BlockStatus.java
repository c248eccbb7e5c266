package io.bbfindex.ingest.records;

/** Bits of CBlockIndex::nStatus (Core src/chain.h, enum BlockStatus). */
public final class BlockStatus {

  /** Validity level in the low three bits (BLOCK_VALID_MASK = 1|2|3|4|5). */
  static final int VALID_MASK = 7;

  public static final int VALID_TREE = 2;
  static final int VALID_TRANSACTIONS = 3;
  static final int VALID_CHAIN = 4;
  public static final int VALID_SCRIPTS = 5;

  /** Full block available in blk*.dat. */
  public static final int HAVE_DATA = 8;

  /** Undo data available in rev*.dat. */
  public static final int HAVE_UNDO = 16;

  public static final int FAILED_VALID = 32;

  /** No longer set by Core, but still found in old databases. */
  static final int FAILED_CHILD = 64;

  static final int FAILED_MASK = FAILED_VALID | FAILED_CHILD;
  static final int OPT_WITNESS = 128;

  private BlockStatus() {}

  public static int validity(int status) {
    return status & VALID_MASK;
  }

  public static boolean hasData(int status) {
    return (status & HAVE_DATA) != 0;
  }

  static boolean hasUndo(int status) {
    return (status & HAVE_UNDO) != 0;
  }

  public static boolean failed(int status) {
    return (status & FAILED_MASK) != 0;
  }

  /**
   * Whether Core could make this block (taken alone) part of its active chain: not failed,
   * transactions validated, and its transactions received ({@code nTx > 0}; the caller must require
   * all of it of every ancestor too). These are Core's setBlockIndexCandidates conditions ({@code
   * IsValid(BLOCK_VALID_TRANSACTIONS) && HaveNumChainTxs()}): nTx stays set when pruning clears
   * HAVE_DATA, so a pruned ancestor does not break the chain; unpruned, nTx > 0 and validity >=
   * TRANSACTIONS imply HAVE_DATA.
   */
  public static boolean chainCandidate(int status, int txCount) {
    return !failed(status) && validity(status) >= VALID_TRANSACTIONS && txCount > 0;
  }
}
