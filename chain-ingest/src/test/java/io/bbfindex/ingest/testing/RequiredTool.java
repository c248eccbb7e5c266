package io.bbfindex.ingest.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test does when a real program it needs (a bitcoind, wrk, node, prometheus, ...) is
 * missing: under {@code CI=true} it fails, since CI must run every test; elsewhere it is skipped
 * with the reason printed.
 */
public final class RequiredTool {
  private RequiredTool() {}

  /** Fails (under {@code CI=true}) or aborts the calling test; never returns normally. */
  public static void missing(String reason) {
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      Assertions.fail("required under CI=true: " + reason);
    }
    System.out.println("SKIPPED: " + reason);
    Assumptions.abort(reason);
  }
}
