package io.bbfindex.app.lookup;

/** Whether a txindex or block-index hit lies on the active chain. */
public enum ChainStatus {
  CONFIRMED("confirmed"),
  /** In a block that a reorg (or a lighter fork) left off the active chain. */
  STALE("stale"),
  /** Not in a block yet: in the followed node's mempool ({@code serve --follow}). */
  MEMPOOL("mempool");

  private final String json;

  ChainStatus(String json) {
    this.json = json;
  }

  public static ChainStatus of(boolean onActiveChain) {
    return onActiveChain ? CONFIRMED : STALE;
  }

  /** The value the API writes. */
  public String json() {
    return json;
  }
}
