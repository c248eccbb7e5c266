package io.bbfindex.app.page;

import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * {@code GET /} (the page), {@code GET /page/page.js} and {@code GET /page/page.css}: resources of
 * the jar, read once. The page is safe to open on any server: its Content-Security-Policy allows
 * only this origin (no inline script, so server data can never run; the script writes it with
 * {@code textContent} only), and it is revalidated by its {@code ETag} so that an upgraded server's
 * page is never served stale from a browser's cache.
 */
public final class PageRoutes implements Feature {
  /** Only this origin, for everything; no framing, no {@code <base>}. */
  public static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

  private static final AsciiString CONTENT_TYPE_OPTIONS =
      AsciiString.cached("X-Content-Type-Options");
  private static final AsciiString REFERRER_POLICY = AsciiString.cached("Referrer-Policy");
  private static final AsciiString NOSNIFF = AsciiString.cached("nosniff");
  private static final AsciiString NO_REFERRER = AsciiString.cached("no-referrer");

  /** Always asked again, answered 304 while the jar is the same. */
  private static final AsciiString REVALIDATE = AsciiString.cached("no-cache");

  private final List<Asset> assets =
      List.of(
          Asset.load("/", "page", "index.html", "text/html; charset=utf-8"),
          Asset.load("/page/page.js", "page_js", "page.js", "text/javascript; charset=utf-8"),
          Asset.load("/page/page.css", "page_css", "page.css", "text/css; charset=utf-8"));

  @Override
  public List<Route> routes() {
    return assets.stream().map(a -> Route.get(a.path(), a.tag(), a::answer)).toList();
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(PageRoutes.class, "openapi.json");
  }

  /** One file of the page, its bytes and their ETag. */
  private record Asset(String path, String tag, AsciiString contentType, byte[] body, String etag) {
    static Asset load(String path, String tag, String resource, String contentType) {
      try (InputStream in = PageRoutes.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("the page's " + resource + " is missing from the jar");
        }
        byte[] body = in.readAllBytes();
        return new Asset(path, tag, AsciiString.cached(contentType), body, etag(body));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    FullHttpResponse answer(RouteRequest request) {
      String ifNoneMatch = request.http().headers().get(HttpHeaderNames.IF_NONE_MATCH);
      boolean same = ifNoneMatch != null && matches(ifNoneMatch, etag);
      FullHttpResponse response =
          same
              ? Responses.response(
                  HttpResponseStatus.NOT_MODIFIED, contentType, Unpooled.EMPTY_BUFFER)
              : Responses.response(
                  HttpResponseStatus.OK, contentType, Unpooled.wrappedBuffer(body));
      if (same) {
        response.headers().remove(HttpHeaderNames.CONTENT_LENGTH); // a 304 has no body to size
      }
      response
          .headers()
          .set(HttpHeaderNames.ETAG, etag)
          .set(HttpHeaderNames.CACHE_CONTROL, REVALIDATE)
          .set(HttpHeaderNames.CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY)
          .set(CONTENT_TYPE_OPTIONS, NOSNIFF)
          .set(REFERRER_POLICY, NO_REFERRER);
      return response;
    }

    /** {@code If-None-Match}: {@code *} or a list of tags, weak ones compared weakly (RFC 9110). */
    private static boolean matches(String header, String etag) {
      for (String t : header.split(",")) {
        String tag = t.strip();
        if (tag.equals("*") || tag.equals(etag) || tag.equals("W/" + etag)) {
          return true;
        }
      }
      return false;
    }

    private static String etag(byte[] body) {
      try {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(body);
        return "\"" + HexFormat.of().formatHex(digest, 0, 16) + "\"";
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("the JDK lacks SHA-256", e);
      }
    }
  }
}
