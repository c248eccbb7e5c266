package io.bbfindex.app.ops;

import io.bbfindex.app.lookup.IndexStatus;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.Route;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The Bitcoin index's state: {@code GET /v1/status} and {@code GET /v1/filters}. */
public final class IndexStatusRoutes implements Feature {
  private final IndexStatus index;

  public IndexStatusRoutes(IndexStatus index) {
    this.index = Objects.requireNonNull(index, "index");
  }

  @Override
  public List<Route> routes() {
    return List.of(
        Route.get("/v1/filters", "filters", request -> filters()),
        Route.get("/v1/status", "status", request -> status()));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(IndexStatusRoutes.class, "index-status.openapi.json");
  }

  private FullHttpResponse filters() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("tipHeight", index.tipHeight());
    body.put("filters", index.filters());
    return Responses.json(HttpResponseStatus.OK, body);
  }

  /** The tip and the txindex's layout and location. */
  private FullHttpResponse status() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("tipHeight", index.tipHeight());
    body.put("txindexLayout", index.txindexLayout());
    body.put("txindexLocation", index.txindexLocation());
    body.put("txindexSource", index.txindexSource());
    double lag = index.txindexLagBlocks();
    body.put("txindexLagBlocks", Double.isNaN(lag) ? null : (long) lag);
    body.put("leveldbReads", index.leveldbReads());
    body.putAll(index.status()); // a following backend adds the node's tips and follow state
    return Responses.json(HttpResponseStatus.OK, body);
  }
}
