package io.bbfindex.app.route;

import io.netty.handler.codec.http.FullHttpResponse;

/**
 * Answers the requests of one route. May throw {@link Refusal.Exception} for a refusal in the API's
 * JSON error form; anything else it throws is a 500.
 */
@FunctionalInterface
public interface RouteHandler {
  FullHttpResponse answer(RouteRequest request);
}
