package io.bbfindex.follow.node;

import java.io.IOException;

/** The node answered a JSON-RPC call with an error object ({@code code}, {@code message}). */
public final class RpcException extends IOException {
  /** Core's RPC_INVALID_ADDRESS_OR_KEY: unknown block or transaction. */
  public static final int NOT_FOUND = -5;

  /** Core's RPC_IN_WARMUP: the node is starting. */
  public static final int IN_WARMUP = -28;

  private final int code;

  public RpcException(String method, int code, String message) {
    super(method + ": RPC error " + code + ": " + message);
    this.code = code;
  }

  public int code() {
    return code;
  }
}
