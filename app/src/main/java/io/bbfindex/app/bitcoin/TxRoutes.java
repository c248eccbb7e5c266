package io.bbfindex.app.bitcoin;

import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.HashParam;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.bbfindex.ingest.encoding.HashKeys;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Objects;

/**
 * The transaction lookups: {@code GET /v1/tx/{txid}} (the hot path, written without object mapping)
 * and {@code POST /v1/tx/lookup} ({@link TxBatchRoute}).
 *
 * <p>Lookups run on the event loop. WHY: a filter "no" is a few cache lines, and a "maybe" is one
 * LevelDB get served from the page cache in microseconds; a hand-off to another pool would cost
 * more than the work, and keeps pipelined answers in order for free.
 */
public final class TxRoutes implements Feature {
  /** Scratch for hex digits, one per event-loop thread (routes are shared). */
  static final ThreadLocal<byte[]> HEX_SCRATCH =
      ThreadLocal.withInitial(() -> new byte[HashKeys.HEX_CHARS]);

  private final LookupService lookups;
  private final TxBatchRoute batch;

  public TxRoutes(LookupService lookups, Metrics metrics) {
    this.lookups = Objects.requireNonNull(lookups, "lookups");
    this.batch = new TxBatchRoute(lookups, metrics);
  }

  @Override
  public List<Route> routes() {
    return List.of(
        Route.get("/v1/tx/{txid+}", "tx", this::tx),
        Route.post("/v1/tx/lookup", "tx_batch", batch::answer));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(TxRoutes.class, "tx.openapi.json");
  }

  private FullHttpResponse tx(RouteRequest request) {
    byte[] key = HashParam.parse(request.param(0), "malformed_txid", "txid");
    TxAnswer answer = lookups.tx(key).orElse(null);
    ByteBuf body = request.ctx().alloc().buffer(Json.MAX_TX_ANSWER_BYTES);
    Json.writeTx(body, key, 0, answer, HEX_SCRATCH.get());
    FullHttpResponse response =
        Responses.response(
            answer == null ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.OK,
            Responses.APPLICATION_JSON,
            body);
    if (answer != null) {
      response
          .headers()
          .set(
              HttpHeaderNames.CACHE_CONTROL,
              Finality.cacheControl(answer.status(), answer.confirmations()));
    }
    return response;
  }
}
