package io.bbfindex.app.lookup;

import org.jspecify.annotations.Nullable;

/**
 * The backend cannot answer right now, through no fault of the request (e.g. its filter store
 * faulted and is being re-verified): the client should retry, the server is not ready meanwhile.
 * Answered as 503 with its {@link #code()} ({@code store_unavailable} unless said) and {@code
 * Retry-After}.
 */
public final class BackendUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String message;

  /** The error code of a store being verified again. */
  public static final String STORE_UNAVAILABLE = "store_unavailable";

  private final String code;

  public BackendUnavailableException(String message, @Nullable Throwable cause) {
    this(STORE_UNAVAILABLE, message, cause);
  }

  /**
   * @param code the answer's error code, e.g. {@code catching_up}, {@code node_unreachable}
   * @param message what the answer's detail says: no class names, no local paths
   */
  public BackendUnavailableException(String code, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.message = message;
    this.code = code;
  }

  public String code() {
    return code;
  }

  /** What went wrong: there always is a message. */
  @Override
  public String getMessage() {
    return message;
  }
}
