package io.bbfindex.app.eth;

import io.bbfindex.app.lookup.Readiness;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.Namespace;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.Route;
import io.bbfindex.eth.EthIndex;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/**
 * The Ethereum routes ({@link EthApi}): {@code GET /v1/eth/tx/{hash}}, {@code POST
 * /v1/eth/tx/lookup} and {@code GET /v1/eth/status}. A server without an Ethereum source runs
 * {@link #absent()} instead, which says so under {@code /v1/eth/}.
 */
public final class EthRoutes implements Feature {
  private static final String PREFIX = "/v1/eth/";

  private final EthApi api;

  public EthRoutes(EthApi api) {
    this.api = api;
  }

  /**
   * The part of a server without an Ethereum source: no route, and a 404 that names the missing
   * source for every path under {@code /v1/eth/}.
   */
  public static Feature absent() {
    return new Feature() {
      @Override
      public List<Route> routes() {
        return List.of();
      }

      @Override
      public OpenApiFragment openApi() {
        return OpenApiFragment.empty();
      }

      @Override
      public List<Namespace> namespaces() {
        return List.of(
            new Namespace(
                PREFIX,
                "other",
                refusal ->
                    Responses.error(
                        new Refusal(
                            HttpResponseStatus.NOT_FOUND,
                            "no_eth_source",
                            "this server has no Ethereum source; start it with serve --eth-rpc"
                                + " URL"))));
      }
    };
  }

  @Override
  public List<Route> routes() {
    return List.of(
        Route.get("/v1/eth/tx/{hash+}", "eth_tx", r -> json(api.tx(r.param(0)))),
        Route.post(
            "/v1/eth/tx/lookup",
            "eth_tx_batch",
            r -> json(api.batch(new ByteBufInputStream(r.http().content().duplicate())))),
        Route.get("/v1/eth/status", "eth_status", r -> json(api.status())));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(EthRoutes.class, "openapi.json");
  }

  /** Ready once the index has reached the node's head, on the chain it holds. */
  public Readiness readiness() {
    EthIndex index = api.index();
    return new Readiness() {
      @Override
      public boolean ready() {
        return index.chainReplaced() == null && index.caughtUp();
      }

      @Override
      public String notReadyReason() {
        String replaced = index.chainReplaced();
        return replaced != null
            ? "the Ethereum node is not on the index's chain: " + replaced
            : "the Ethereum index is catching up with the node";
      }
    };
  }

  private static FullHttpResponse json(EthApi.Reply reply) {
    FullHttpResponse response =
        Responses.response(
            HttpResponseStatus.valueOf(reply.status()),
            Responses.APPLICATION_JSON,
            Unpooled.wrappedBuffer(reply.body()));
    if (reply.retryAfter() > 0) {
      response.headers().set(HttpHeaderNames.RETRY_AFTER, reply.retryAfter());
    }
    return response;
  }
}
