package io.bbfindex.app.websocket;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which browser pages may open the WebSocket: a browser sends its page's {@code Origin} with the
 * upgrade and, unlike a fetch, enforces no CORS on the answer, so the server must refuse foreign
 * pages itself (cross-site WebSocket hijacking). Allowed: no {@code Origin} (not a browser), an
 * origin in {@code --cors-origins} ({@code *}: any), or the server's own ({@code Origin}'s host and
 * port are the request's {@code Host}).
 */
final class OriginCheck {
  private final List<String> allowed;

  OriginCheck(List<String> corsOrigins) {
    this.allowed = List.copyOf(corsOrigins);
  }

  boolean allows(Optional<String> origin, Optional<String> host) {
    if (origin.isEmpty() || allowed.contains("*") || allowed.contains(origin.get())) {
      return true;
    }
    return host.isPresent() && authority(origin.get()).equals(Optional.of(lower(host.get())));
  }

  /** {@code host[:port]} of an origin, the port only when written. */
  private static Optional<String> authority(String origin) {
    try {
      URI u = new URI(origin);
      if (u.getHost() == null) {
        return Optional.empty();
      }
      return Optional.of(lower(u.getPort() < 0 ? u.getHost() : u.getHost() + ":" + u.getPort()));
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
