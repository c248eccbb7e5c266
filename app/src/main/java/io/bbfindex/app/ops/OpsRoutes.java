package io.bbfindex.app.ops;

import io.bbfindex.app.lookup.IndexStatus;
import io.bbfindex.app.lookup.Readiness;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What every server answers, whatever it indexes: {@code GET /livez}, {@code GET /readyz} (ready
 * when every part the server runs is) and {@code GET /metrics}.
 */
public final class OpsRoutes implements Feature {
  public static final AsciiString PROMETHEUS_TEXT =
      AsciiString.cached("text/plain; version=0.0.4; charset=utf-8");

  private static final byte[] LIVE = "{\"status\":\"live\"}".getBytes(StandardCharsets.US_ASCII);

  private final Supplier<String> metricsText;
  private final List<Readiness> parts;
  private final Optional<IndexStatus> bitcoin;

  /**
   * @param metricsText renders the Prometheus exposition text for {@code GET /metrics}
   * @param parts what must be ready for {@code /readyz} to say so, asked in order (the first not
   *     ready names itself)
   * @param bitcoin the Bitcoin index, whose tip a ready answer reports; empty without one
   */
  public OpsRoutes(
      Supplier<String> metricsText, List<Readiness> parts, Optional<IndexStatus> bitcoin) {
    this.metricsText = Objects.requireNonNull(metricsText, "metricsText");
    this.parts = List.copyOf(parts);
    this.bitcoin = Objects.requireNonNull(bitcoin, "bitcoin");
  }

  @Override
  public List<Route> routes() {
    return List.of(
        Route.get("/metrics", "metrics", this::metrics),
        Route.get("/livez", "livez", request -> live()),
        Route.get("/readyz", "readyz", request -> readyz()));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(OpsRoutes.class, "ops.openapi.json");
  }

  private FullHttpResponse metrics(RouteRequest request) {
    return Responses.response(
        HttpResponseStatus.OK,
        PROMETHEUS_TEXT,
        Unpooled.wrappedBuffer(metricsText.get().getBytes(StandardCharsets.UTF_8)));
  }

  private static FullHttpResponse live() {
    return Responses.response(
        HttpResponseStatus.OK, Responses.APPLICATION_JSON, Unpooled.wrappedBuffer(LIVE));
  }

  private FullHttpResponse readyz() {
    for (Readiness part : parts) {
      if (!part.ready()) {
        return Responses.error(
            new Refusal(
                HttpResponseStatus.SERVICE_UNAVAILABLE, "not_ready", part.notReadyReason()));
      }
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("ready", true);
    bitcoin.ifPresent(index -> body.put("tipHeight", index.tipHeight()));
    return Responses.json(HttpResponseStatus.OK, body);
  }
}
