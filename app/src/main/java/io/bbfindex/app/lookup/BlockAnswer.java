package io.bbfindex.app.lookup;

/**
 * A block index entry ({@code 'b'} record) as the API reports it.
 *
 * @param hash internal byte order
 * @param nStatus Core's raw {@code nStatus} validity/data bits, or {@link #NO_STATUS} for a block
 *     known from the followed node's RPC only (its block index entry is not on disk yet)
 * @param nTx transactions in the block
 * @param file the {@code blk?????.dat} number, or -1 when Core holds no data for the block
 * @param dataPos byte offset of the header in that file
 * @param prevHash internal byte order
 * @param merkleRoot internal byte order
 * @param time header time (seconds since the epoch, unsigned 32-bit)
 * @param bits compact target (unsigned 32-bit)
 * @param nonce unsigned 32-bit
 * @param confirmations tip height - height + 1 on the active chain; -1 off it (as Core reports)
 */
public record BlockAnswer(
    byte[] hash,
    int height,
    int nStatus,
    int nTx,
    int file,
    long dataPos,
    int version,
    byte[] prevHash,
    byte[] merkleRoot,
    long time,
    long bits,
    long nonce,
    boolean onActiveChain,
    int confirmations) {

  /** {@code nStatus} of a block whose block index entry was not read (the field is left out). */
  public static final int NO_STATUS = -1;

  public ChainStatus status() {
    return ChainStatus.of(onActiveChain);
  }
}
