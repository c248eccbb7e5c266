package io.bbfindex.app.websocket;

import io.bbfindex.app.esplora.EsploraApi;
import io.bbfindex.app.push.PushHub;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.bbfindex.ingest.encoding.Hash32;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code GET <esplora-prefix>/v1/ws}: the WebSocket in mempool.space's dialect ({@link WsSession}).
 * The upgrade is refused with a JSON error before anything changes: 426 without {@code Upgrade:
 * websocket}, 403 from a page whose {@code Origin} is not allowed ({@link OriginCheck}). Once
 * upgraded, the connection's HTTP handlers leave the pipeline ({@code leaveHttp}, which the HTTP
 * layer owns) and the session takes their place.
 */
public final class WebSocketRoutes implements Feature {
  private static final System.Logger LOG = System.getLogger(WebSocketRoutes.class.getName());
  private static final String PREFIX_MARK = "/__ESPLORA__/";

  private final PushHub hub;
  private final EsploraApi esplora;
  private final OriginCheck origins;
  private final WsLimits limits;
  private final Consumer<ChannelPipeline> leaveHttp;
  private final ActiveChain chain;

  /** The served active chain: its tip height and the block hash at a height. */
  public interface ActiveChain {
    int tipHeight();

    Optional<Hash32> hashAt(int height);
  }

  public WebSocketRoutes(
      PushHub hub,
      EsploraApi esplora,
      ActiveChain chain,
      List<String> corsOrigins,
      WsLimits limits,
      Consumer<ChannelPipeline> leaveHttp) {
    this.chain = Objects.requireNonNull(chain, "chain");
    this.hub = Objects.requireNonNull(hub, "hub");
    this.esplora = Objects.requireNonNull(esplora, "esplora");
    this.origins = new OriginCheck(corsOrigins);
    this.limits = Objects.requireNonNull(limits, "limits");
    this.leaveHttp = Objects.requireNonNull(leaveHttp, "leaveHttp");
  }

  /** The WebSocket's path under {@code prefix}. */
  public static String path(String prefix) {
    return prefix + "/v1/ws";
  }

  @Override
  public List<Route> routes() {
    return List.of(Route.stream(path(esplora.prefix()), "websocket", this::upgrade));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(
        WebSocketRoutes.class, "openapi.json", Map.of(PREFIX_MARK, esplora.prefix() + "/"));
  }

  private void upgrade(RouteRequest request) {
    FullHttpRequest http = request.http();
    if (!http.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)) {
      throw new Refusal(
              HttpResponseStatus.UPGRADE_REQUIRED,
              "websocket_required",
              "this is a WebSocket endpoint: connect with Upgrade: websocket")
          .toException();
    }
    Optional<String> origin = Optional.ofNullable(http.headers().get(HttpHeaderNames.ORIGIN));
    Optional<String> host = Optional.ofNullable(http.headers().get(HttpHeaderNames.HOST));
    if (!origins.allows(origin, host)) {
      throw new Refusal(
              HttpResponseStatus.FORBIDDEN,
              "origin_not_allowed",
              "pages of this origin may not open the WebSocket (serve --cors-origins lists those"
                  + " that may)")
          .toException();
    }
    ChannelHandlerContext ctx = request.ctx();
    WebSocketServerHandshaker handshaker =
        new WebSocketServerHandshakerFactory(
                "ws://" + host.orElse("localhost") + request.path(),
                null,
                false,
                limits.maxMessageBytes())
            .newHandshaker(http);
    if (handshaker == null) {
      throw new Refusal(
              HttpResponseStatus.UPGRADE_REQUIRED,
              "websocket_version",
              "unsupported WebSocket version: use 13 (RFC 6455)")
          .toException();
    }
    ChannelPipeline p = ctx.pipeline();
    WsSession session =
        new WsSession(ctx.channel(), hub, limits, this::recentBlocks, this::blockJson);
    leaveHttp.accept(p);
    handshaker.handshake(ctx.channel(), http);
    p.addAfter(ctx.name(), "ws-aggregator", new WebSocketFrameAggregator(limits.maxMessageBytes()));
    p.addAfter("ws-aggregator", "ws-session", session);
    p.remove(ctx.handler());
  }

  /** The block's esplora JSON, if it is still known (a block a reorg just took may not be). */
  private Optional<Map<String, Object>> blockJson(Hash32 hash) {
    try {
      return esplora.blockJson(hash.internal());
    } catch (RuntimeException e) {
      LOG.log(Level.DEBUG, "no block JSON for " + hash + ": " + e);
      return Optional.empty();
    }
  }

  /** The esplora JSON of the {@code count} newest blocks of the active chain, newest first. */
  private List<Map<String, Object>> recentBlocks(int count) {
    List<Map<String, Object>> blocks = new java.util.ArrayList<>();
    int tip = chain.tipHeight();
    for (int h = tip; h >= 0 && h > tip - count; h--) {
      chain.hashAt(h).flatMap(this::blockJson).ifPresent(blocks::add);
    }
    return blocks;
  }
}
