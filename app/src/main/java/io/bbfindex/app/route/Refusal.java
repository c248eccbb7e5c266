package io.bbfindex.app.route;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request a route refuses, with the status and a JSON body {@code {"error", "detail"}}. Thrown by
 * the routes' guard clauses (as {@link Exception}) and written by the dispatcher; never carries a
 * stack trace to the client.
 *
 * @param status the HTTP status
 * @param error a short, stable, machine-readable code, e.g. {@code malformed_txid}
 * @param detail a sentence for humans; never echoes more than a bounded piece of the input
 */
public record Refusal(HttpResponseStatus status, String error, String detail) {

  public static Refusal badRequest(String error, String detail) {
    return new Refusal(HttpResponseStatus.BAD_REQUEST, error, detail);
  }

  /** This refusal, thrown: ends the request's handling. */
  public Exception toException() {
    return new Exception(this);
  }

  /** Thrown where a refusal ends request handling. Stackless: it is control flow, not a bug. */
  public static final class Exception extends RuntimeException {
    private final Refusal refusal;

    public Exception(Refusal refusal) {
      super(refusal.detail(), null, false, false);
      this.refusal = refusal;
    }

    public Refusal refusal() {
      return refusal;
    }
  }
}
