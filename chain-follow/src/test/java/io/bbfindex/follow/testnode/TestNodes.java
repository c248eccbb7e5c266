package io.bbfindex.follow.testnode;

import io.bbfindex.follow.regtest.RegtestNode;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

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
              String reason =
                  variable
                      + " is not set to an executable bitcoind (see the README's Tests section)";
              if ("true".equals(System.getenv("CI"))) {
                Assertions.fail("a real bitcoind is required under CI=true: " + reason);
              }
              System.out.println("SKIPPED (needs a real node): " + reason);
              Assumptions.abort(reason);
              return null;
            });
  }
}
