package io.bbfindex.app.lookup;

import java.util.Optional;

/**
 * What a lookup needs from the chain data: a membership filter to say "no" cheaply, and Bitcoin
 * Core's own indexes to confirm a "maybe". All keys are 32 bytes in Bitcoin's internal byte order.
 */
public interface ChainLookup {

  /**
   * Filter probe for the txid at {@code keys[offset .. offset + 32)}: {@code false} = certainly
   * absent.
   */
  boolean txMaybe(byte[] keys, int offset);

  /**
   * Filter probe of {@code count} consecutive txids (32 bytes each from offset 0): bit {@code i %
   * 64} of {@code maybe[i / 64]} is txid i's "maybe", the bits from {@code count} on are 0; returns
   * how many are set.
   */
  int txMaybeBatch(byte[] keys, int count, long[] maybe);

  /**
   * The txid's location confirmed by the txindex (one LevelDB read), or empty when Core does not
   * know it.
   */
  Optional<TxAnswer> lookupTx(byte[] txid);

  /** Filter probe for a block hash: {@code false} = certainly not in the block index. */
  boolean blockMaybe(byte[] hash);

  /** The block's index entry, or empty when the block index does not hold it. */
  Optional<BlockAnswer> lookupBlock(byte[] hash);
}
