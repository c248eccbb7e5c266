package io.bbfindex.eth;

import java.io.IOException;

/**
 * A JSON-RPC call failed: transport, an error answer, or an answer that does not match its request.
 */
public class EthRpcException extends IOException {
  public EthRpcException(String message) {
    super(message);
  }

  public EthRpcException(String message, Throwable cause) {
    super(message, cause);
  }
}
