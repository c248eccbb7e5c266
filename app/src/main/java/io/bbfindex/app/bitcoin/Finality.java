package io.bbfindex.app.bitcoin;

import io.bbfindex.app.lookup.ChainStatus;
import io.netty.util.AsciiString;

/**
 * {@code Cache-Control} of an answer about a transaction or block, by finality: what will not
 * change may be cached; everything else is {@code no-store} (the server's default for every other
 * answer).
 */
public final class Finality {
  /** Confirmations from which an answer is treated as final: no reorg that deep is expected. */
  static final int FINAL_CONFIRMATIONS = 100;

  /** Confirmations from which an answer may be cached briefly. */
  static final int SETTLED_CONFIRMATIONS = 6;

  static final AsciiString NO_STORE = AsciiString.cached("no-store");

  /**
   * Deeply confirmed: where the transaction or block is will not change. (The {@code confirmations}
   * count in a cached copy only grows stale by the day's blocks, a lower bound.)
   */
  static final AsciiString FINAL = AsciiString.cached("public, max-age=86400, immutable");

  /** Past the usual 6 blocks but shallow: a minute, so a deep reorg is seen soon. */
  static final AsciiString SETTLED = AsciiString.cached("public, max-age=60");

  private Finality() {}

  /**
   * The header for an answer about a transaction or block: {@code status} and {@code confirmations}
   * as the API reports them.
   */
  public static AsciiString cacheControl(ChainStatus status, int confirmations) {
    if (status != ChainStatus.CONFIRMED || confirmations < SETTLED_CONFIRMATIONS) {
      return NO_STORE;
    }
    return confirmations >= FINAL_CONFIRMATIONS ? FINAL : SETTLED;
  }
}
