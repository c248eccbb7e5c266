package io.bbfindex.follow.node;

import java.io.IOException;

/**
 * The node did not answer: connection refused, timed out, or still warming up (RPC error -28). The
 * follower keeps serving what it has and retries.
 */
public final class NodeUnreachableException extends IOException {
  public NodeUnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
