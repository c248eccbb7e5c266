package io.bbfindex.app.http;

/**
 * {@code /livez}, {@code /readyz} and {@code /metrics}: what load balancers, orchestrators and
 * Prometheus ask to decide whether the server is alive, takes traffic, or is in trouble.
 *
 * <p>WHY they are never rate-limited or capped away: behind a proxy every check comes from the
 * proxy's one address, which carries all the traffic too, so a per-client limit would mark a busy
 * replica down exactly when it is busy; and a server that holds its maximum of connections must
 * still say so to whoever checks it. They cost a few microseconds and read no store.
 */
final class HealthRoutes {
  private HealthRoutes() {}

  /** Whether the request target ({@code /readyz}, {@code /metrics?x}) is a health route. */
  static boolean is(String uri) {
    int query = uri.indexOf('?');
    String path = query < 0 ? uri : uri.substring(0, query);
    return switch (path) {
      case "/livez", "/readyz", "/metrics" -> true;
      default -> false;
    };
  }
}
