package io.bbfindex.app.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.cors.CorsConfig;
import io.netty.handler.codec.http.cors.CorsConfigBuilder;
import io.netty.handler.codec.http.cors.CorsHandler;
import java.util.List;

/**
 * CORS for browser wallets, by Netty's {@link CorsHandler}: preflights ({@code OPTIONS} with {@code
 * Origin} and {@code Access-Control-Request-Method}) are answered here for any path, and answers to
 * an allowed origin carry {@code Access-Control-Allow-Origin}. Requests from other origins are
 * served without CORS headers (the browser then hides the answer), never refused: the API is
 * public, CORS only decides which web pages may read it.
 */
final class CorsPolicy extends CorsHandler {
  /** Browsers may cache a preflight this long (seconds); Chromium caps it at 2 hours. */
  private static final long PREFLIGHT_MAX_AGE = 7_200;

  private final boolean anyOrigin;

  private CorsPolicy(CorsConfig config, boolean anyOrigin) {
    super(config);
    this.anyOrigin = anyOrigin;
  }

  /** A handler for one connection; {@code origins} as in {@link HttpOptions#corsOrigins()}. */
  static CorsPolicy of(List<String> origins) {
    boolean any = origins.contains("*");
    CorsConfigBuilder b =
        any
            ? CorsConfigBuilder.forAnyOrigin()
            : CorsConfigBuilder.forOrigins(origins.toArray(String[]::new));
    CorsConfig config =
        b.allowedRequestMethods(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST)
            .allowedRequestHeaders(HttpHeaderNames.CONTENT_TYPE)
            .exposeHeaders(HttpHeaderNames.RETRY_AFTER, HttpHeaderNames.CACHE_CONTROL)
            .maxAge(PREFLIGHT_MAX_AGE)
            .build();
    return new CorsPolicy(config, any);
  }

  /**
   * With a list of origins the answer depends on {@code Origin}, so every answer says so ({@code
   * Vary: Origin}), also those to requests without one: otherwise a shared cache could hand a page
   * of an allowed origin an answer stored without {@code Access-Control-Allow-Origin}.
   */
  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
      throws Exception {
    if (!anyOrigin && msg instanceof HttpResponse response) {
      response.headers().set(HttpHeaderNames.VARY, HttpHeaderNames.ORIGIN);
    }
    super.write(ctx, msg, promise);
  }
}
