package io.bbfindex.app.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * An answer the connection guards and the dispatcher give instead of a route (an undecodable
 * request, a body too large, a rate limit, a 5xx), with the status and a JSON body {@code {"error",
 * "detail"}} ({@link ApiHandler#error}); never carries a stack trace to the client. The routes' own
 * refusals are {@code route.Refusal}s, written the same way.
 *
 * @param status the HTTP status
 * @param error a short, stable, machine-readable code, e.g. {@code malformed_txid}
 * @param detail a sentence for humans; never echoes more than a bounded piece of the input
 */
record ApiError(HttpResponseStatus status, String error, String detail) {

  static ApiError badRequest(String error, String detail) {
    return new ApiError(HttpResponseStatus.BAD_REQUEST, error, detail);
  }
}
