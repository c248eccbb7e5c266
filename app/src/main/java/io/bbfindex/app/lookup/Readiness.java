package io.bbfindex.app.lookup;

/**
 * Whether a part of the server is ready to answer ({@code GET /readyz} asks each part the server
 * runs: the Bitcoin index, the Ethereum source).
 */
public interface Readiness {
  /** Whether this part is loaded and consistent enough to answer. */
  boolean ready();

  /** Why {@link #ready()} is false, as {@code GET /readyz} tells it. */
  default String notReadyReason() {
    return "the index is not loaded";
  }
}
