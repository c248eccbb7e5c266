package io.bbfindex.follow.node;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The node did not answer: connection refused, timed out, or still warming up (RPC error -28). The
 * follower keeps serving what it has and retries.
 */
public final class NodeUnreachableException extends IOException {
  private final String message;

  public NodeUnreachableException(String message, @Nullable Throwable cause) {
    super(message, cause);
    this.message = message;
  }

  /** What failed: there always is a message. */
  @Override
  public String getMessage() {
    return message;
  }
}
