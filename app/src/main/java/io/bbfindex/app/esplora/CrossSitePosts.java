package io.bbfindex.app.esplora;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Whether a {@code POST} that changes something outside the server (the esplora relay's {@code POST
 * tx}, which broadcasts through the followed node) was sent by a web page of another site, and is
 * then refused.
 *
 * <p>What real clients send: esplora's API takes the transaction as hex in the body, and its
 * clients send it as {@code text/plain} (a browser's {@code fetch} of a string), {@code
 * application/x-www-form-urlencoded} ({@code curl -d}, axios' default) or with no {@code
 * Content-Type} at all (BDK's esplora client). Those are exactly the types a cross-site form or a
 * no-preflight {@code fetch} can send too, so the content type alone cannot tell them apart, and
 * demanding JSON would break every esplora client. What a browser always adds, and a page cannot
 * forge, is {@code Sec-Fetch-Site} (every current browser) and {@code Origin} (on every
 * cross-origin {@code POST}). So:
 *
 * <ul>
 *   <li>{@code Content-Type: application/json} passes: a browser sends it cross-site only after a
 *       CORS preflight, which {@link CorsPolicy} approves for {@code --cors-origins} only;
 *   <li>otherwise a request marked by a browser as coming from another site ({@code Sec-Fetch-Site}
 *       other than {@code same-origin} or {@code none}, or an {@code Origin} whose host and port
 *       are not the {@code Host} it was sent to) is refused;
 *   <li>a request without those marks (curl, BDK, a server-side client) passes.
 * </ul>
 *
 * DNS rebinding (a page that makes its own name point at this server) is {@link HostCheck}'s.
 */
final class CrossSitePosts {
  private CrossSitePosts() {}

  /** Why the request is refused, or null when it may go on. */
  static @Nullable String refusal(HttpHeaders headers) {
    String type = headers.get(HttpHeaderNames.CONTENT_TYPE);
    if (type != null && type.strip().toLowerCase(Locale.ROOT).startsWith("application/json")) {
      return null;
    }
    String site = headers.get("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      return "a web page of another site (Sec-Fetch-Site: "
          + site
          + ") may not relay a transaction; from a page of an allowed CORS origin, send it with"
          + " Content-Type: application/json";
    }
    String origin = headers.get(HttpHeaderNames.ORIGIN);
    if (origin != null && !sameOrigin(origin, headers.get(HttpHeaderNames.HOST))) {
      return "a web page of another origin may not relay a transaction; from a page of an allowed"
          + " CORS origin, send it with Content-Type: application/json";
    }
    return null;
  }

  /** Whether {@code origin} ({@code scheme://host[:port]}) names the {@code host} header's host. */
  private static boolean sameOrigin(String origin, String host) {
    if (host == null) {
      return false;
    }
    try {
      URI u = new URI(origin);
      if (u.getHost() == null) {
        return false; // "null": a sandboxed or opaque origin
      }
      int port = u.getPort() >= 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
      String authority = u.getHost() + ":" + port;
      String sent = host.contains(":") && !host.endsWith("]") ? host : host + ":" + port;
      return authority.equalsIgnoreCase(sent);
    } catch (URISyntaxException e) {
      return false;
    }
  }
}
