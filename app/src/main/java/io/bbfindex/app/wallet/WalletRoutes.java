package io.bbfindex.app.wallet;

import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * {@code GET /v1/tx/{txid}/hex}, {@code /raw} and {@code /merkle-proof} ({@link WalletApi}): the
 * stored bytes, re-hashed before they leave; refusals are the API's JSON errors.
 */
public final class WalletRoutes implements Feature {
  private final WalletApi wallet;

  public WalletRoutes(WalletApi wallet) {
    this.wallet = Objects.requireNonNull(wallet, "wallet");
  }

  @Override
  public List<Route> routes() {
    return List.of(
        route("/v1/tx/{txid}/hex", "tx_hex", WalletApi::hex),
        route("/v1/tx/{txid}/raw", "tx_raw", WalletApi::raw),
        route("/v1/tx/{txid}/merkle-proof", "tx_merkle_proof", WalletApi::merkleProof));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(WalletRoutes.class, "openapi.json");
  }

  private Route route(String pattern, String tag, BiFunction<WalletApi, String, Reply> answer) {
    return Route.get(pattern, tag, request -> answer(request, answer));
  }

  private FullHttpResponse answer(
      RouteRequest request, BiFunction<WalletApi, String, Reply> answer) {
    try {
      Reply reply = answer.apply(wallet, request.param(0));
      return Responses.bytes(reply.status(), reply.contentType(), reply.body());
    } catch (WalletException e) {
      throw new Refusal.Exception(
          new Refusal(HttpResponseStatus.valueOf(e.status()), e.code(), e.detail()));
    }
  }
}
