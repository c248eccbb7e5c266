package io.bbfindex.app.lookup;

/**
 * The backend cannot answer right now, through no fault of the request (e.g. its filter store
 * faulted and is being re-verified): the client should retry, the server is not ready meanwhile.
 * Answered as 503 {@code store_unavailable}.
 */
public final class BackendUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BackendUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
