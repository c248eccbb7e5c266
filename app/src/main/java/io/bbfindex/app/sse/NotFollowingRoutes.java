package io.bbfindex.app.sse;

import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/**
 * The events streams' paths on a server that does not follow a node: without them a request for
 * {@code /v1/tx/{txid}/events} would fall through to the lookup route and be refused as a malformed
 * txid of 71 characters. Here it is a 404 that says what the stream needs.
 */
public final class NotFollowingRoutes implements Feature {
  static final String ERROR = "not_following";

  @Override
  public List<Route> routes() {
    return List.of(
        Route.get("/v1/tx/{txid}/events", "tx_events", NotFollowingRoutes::refuse),
        Route.get("/v1/blocks/events", "block_events", NotFollowingRoutes::refuse));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(SseRoutes.class, "openapi.json");
  }

  private static FullHttpResponse refuse(RouteRequest request) {
    throw new Refusal(
            HttpResponseStatus.NOT_FOUND,
            ERROR,
            "this server does not follow a node: the events streams run under serve --follow")
        .toException();
  }
}
