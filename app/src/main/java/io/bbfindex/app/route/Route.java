package io.bbfindex.app.route;

import io.netty.handler.codec.http.HttpMethod;
import java.util.Objects;

/**
 * One route: a method, a path pattern ({@code /v1/tx/{txid}}: literal segments and parameters, one
 * segment each, as the OpenAPI document writes them), the {@code route} tag of its meters ({@code
 * bbf_http_request_seconds{route}}: stable, dashboards select on it) and its handler. Its OpenAPI
 * operation is the one its feature's {@link OpenApiFragment} documents for the same method and
 * pattern.
 */
public record Route(HttpMethod method, String pattern, String tag, RouteHandler handler) {
  public Route {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(tag, "tag");
    Objects.requireNonNull(handler, "handler");
    PathPattern.of(pattern); // fails fast on a malformed pattern
  }

  /** The path as the OpenAPI document writes it ({@code {txid+}} as {@code {txid}}). */
  public String documentedPath() {
    return PathPattern.of(pattern).documented();
  }

  public static Route get(String pattern, String tag, RouteHandler handler) {
    return new Route(HttpMethod.GET, pattern, tag, handler);
  }

  /** A {@code GET} route that answers with a stream it writes itself ({@link StreamHandler}). */
  public static Route stream(
      String pattern, String tag, java.util.function.Consumer<RouteRequest> open) {
    return new Route(HttpMethod.GET, pattern, tag, new StreamHandler(open));
  }

  public static Route post(String pattern, String tag, RouteHandler handler) {
    return new Route(HttpMethod.POST, pattern, tag, handler);
  }
}
