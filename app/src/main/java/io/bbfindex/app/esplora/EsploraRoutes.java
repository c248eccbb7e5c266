package io.bbfindex.app.esplora;

import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.Namespace;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.bbfindex.app.wallet.Reply;
import io.bbfindex.app.wallet.WalletException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The esplora-compatible routes ({@link EsploraApi}) under their prefix, with esplora's plain-text
 * refusals: an unknown path under the prefix is {@code 404 Not found}, another method {@code 405
 * Method not allowed} (with {@code Allow}). All are counted under one {@code route} tag, {@code
 * esplora}.
 */
public final class EsploraRoutes implements Feature {
  /** The {@code route} tag of every esplora route. */
  static final String TAG = "esplora";

  /** What the OpenAPI fragment writes where the prefix goes. */
  private static final String PREFIX_MARK = "/__ESPLORA__/";

  private final EsploraApi api;
  private final String prefix;

  public EsploraRoutes(EsploraApi api) {
    this.api = Objects.requireNonNull(api, "api");
    this.prefix = api.prefix();
  }

  @Override
  public List<Route> routes() {
    return List.of(
        get("/tx/{txid}", r -> api.tx(r.param(0))),
        get("/tx/{txid}/status", r -> api.txStatus(r.param(0))),
        get("/tx/{txid}/hex", r -> api.wallet().hex(r.param(0))),
        get("/tx/{txid}/raw", r -> api.wallet().raw(r.param(0))),
        get("/tx/{txid}/merkle-proof", r -> api.wallet().merkleProof(r.param(0))),
        get("/tx/{txid}/merkleblock-proof", r -> api.merkleblockProof(r.param(0))),
        get("/block/{hash}", r -> api.block(r.param(0))),
        get("/block/{hash}/header", r -> api.blockHeader(r.param(0))),
        get("/block/{hash}/status", r -> api.blockStatus(r.param(0))),
        get("/block/{hash}/txids", r -> api.blockTxids(r.param(0))),
        get("/block/{hash}/txid/{index}", r -> api.blockTxid(r.param(0), r.param(1))),
        get("/block/{hash}/raw", r -> api.blockRaw(r.param(0))),
        get("/block-height/{height}", r -> api.blockAtHeight(r.param(0))),
        get("/blocks/tip/height", r -> api.tipHeight()),
        get("/blocks/tip/hash", r -> api.tipHash()),
        get("/mempool/txids", r -> api.mempoolTxids()),
        Route.post(prefix + "/tx", TAG, answering(EsploraRoutes.this::postTx)));
  }

  /** {@code POST tx}, unless a browser says a page of another site sent it (403). */
  private Reply postTx(RouteRequest request) {
    String crossSite = CrossSitePosts.refusal(request.http().headers());
    return crossSite != null
        ? Reply.text(HttpResponseStatus.FORBIDDEN.code(), crossSite)
        : api.postTx(request.body());
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(
        EsploraRoutes.class, "openapi.json", Map.of(PREFIX_MARK, prefix + "/"));
  }

  @Override
  public List<Namespace> namespaces() {
    return List.of(new Namespace(prefix + "/", TAG, EsploraRoutes::refusal));
  }

  private Route get(String pattern, Function<RouteRequest, Reply> answer) {
    return Route.get(prefix + pattern, TAG, answering(answer));
  }

  /** The route's answer; a refusal as esplora words it, in plain text. */
  private static io.bbfindex.app.route.RouteHandler answering(
      Function<RouteRequest, Reply> answer) {
    return request -> {
      Reply reply;
      try {
        reply = answer.apply(request);
      } catch (WalletException e) {
        reply = Reply.text(e.status(), EsploraApi.esploraText(e));
      }
      return Responses.bytes(reply.status(), reply.contentType(), reply.body());
    };
  }

  private static FullHttpResponse refusal(Refusal refusal) {
    String text =
        refusal.status().equals(HttpResponseStatus.METHOD_NOT_ALLOWED)
            ? "Method not allowed"
            : "Not found";
    Reply reply = Reply.text(refusal.status().code(), text);
    return Responses.bytes(reply.status(), reply.contentType(), reply.body());
  }
}
