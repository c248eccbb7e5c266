package io.bbfindex.follow;

/** What the follower is doing, as {@code GET /v1/status} shows it. */
public enum FollowState {
  /** Connecting the node's blocks up to its tip (at start, after an outage, during a reorg). */
  CATCHING_UP("catching up"),
  /** At the node's tip, applying its notifications as they come. */
  FOLLOWING("following"),
  /** Taking the whole mempool again (start, a ZMQ gap, a node restart). */
  RESYNCING_MEMPOOL("resyncing mempool"),
  /** The node does not answer; lookups are served from what was known when it stopped. */
  NODE_UNREACHABLE("node unreachable");

  private final String text;

  FollowState(String text) {
    this.text = text;
  }

  /** The wording of the API. */
  public String text() {
    return text;
  }
}
