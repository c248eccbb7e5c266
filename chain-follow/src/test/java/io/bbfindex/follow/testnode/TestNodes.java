package io.bbfindex.follow.testnode;

import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.testing.RequiredTool;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Starts {@link RegtestNode}s for tests. Without the binary the test is skipped with the reason
 * printed, except under {@code CI=true}, where it fails (the README's "Tests" section).
 */
public final class TestNodes {
  private TestNodes() {}

  /** A node of the current build ({@code BITCOIND}, hashed txindex). */
  public static RegtestNode start(boolean zmq) throws IOException, InterruptedException {
    return start(zmq, RegtestNode.CURRENT);
  }

  /**
   * A node of the build {@code variable} names ({@link RegtestNode#CURRENT} or {@link
   * RegtestNode#LEGACY_TXINDEX}).
   */
  public static RegtestNode start(boolean zmq, String variable)
      throws IOException, InterruptedException {
    return RegtestNode.start(binaryOrSkip(variable), zmq);
  }

  /** The binary {@code variable} names, or skip (fail under {@code CI=true}). */
  public static Path binaryOrSkip(String variable) {
    return RegtestNode.binary(variable)
        .orElseGet(
            () -> {
              RequiredTool.missing(
                  variable
                      + " is not set to an executable bitcoind (see the README's Tests section)");
              return null;
            });
  }
}
