package io.bbfindex.app.lookup;

import io.bbfindex.ingest.blockfile.BlockFileReader.RawTransaction;
import java.io.IOException;
import java.util.Optional;

/**
 * The block bytes behind a backend's answers: what the wallet routes (raw transactions, merkle
 * proofs, the esplora dialect) read at the locations the index gives. Implementations only read and
 * frame the bytes; checking that they hash to what was asked is the caller's job, so that the check
 * does not trust the code that did the reading.
 */
public interface BlockData {

  /**
   * The stored bytes of the transaction at {@code at}'s location (which must have one).
   *
   * @throws IOException if the block file cannot be read, or its framing or bytes are corrupt (the
   *     message names the file and position)
   */
  RawTransaction rawTransaction(TxAnswer at) throws IOException;

  /** The whole stored block record (header, tx count, transactions) of {@code block}. */
  byte[] rawBlock(BlockAnswer block) throws IOException;

  /** The active chain's block at {@code height}, or empty below 0 and above the tip. */
  Optional<BlockAnswer> activeBlockAt(int height);

  /**
   * The network's name as Core's {@code getblockchaininfo} says it ({@code main}, {@code test},
   * {@code testnet4}, {@code signet}, {@code regtest}), from the block files' magic.
   */
  String network() throws IOException;
}
