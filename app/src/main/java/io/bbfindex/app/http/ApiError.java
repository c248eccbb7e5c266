package io.bbfindex.app.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request the API refuses, with the status and a JSON body {@code {"error", "detail"}}. Thrown by
 * the route handlers' guard clauses and turned into a response by {@link ApiHandler}; never carries
 * a stack trace to the client.
 *
 * @param status the HTTP status
 * @param error a short, stable, machine-readable code, e.g. {@code malformed_txid}
 * @param detail a sentence for humans; never echoes more than a bounded piece of the input
 */
record ApiError(HttpResponseStatus status, String error, String detail) {

  static ApiError badRequest(String error, String detail) {
    return new ApiError(HttpResponseStatus.BAD_REQUEST, error, detail);
  }

  /** Thrown where an error ends request handling. Stackless: it is control flow, not a bug. */
  static final class Exception extends RuntimeException {
    private final ApiError error;

    Exception(ApiError error) {
      super(error.detail(), null, false, false);
      this.error = error;
    }

    ApiError error() {
      return error;
    }
  }
}
