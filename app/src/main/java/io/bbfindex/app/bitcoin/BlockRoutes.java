package io.bbfindex.app.bitcoin;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.HashParam;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code GET /v1/block/{hash}}: a block's index entry and header, through the block-hash filter.
 */
public final class BlockRoutes implements Feature {
  private final LookupService lookups;

  public BlockRoutes(LookupService lookups) {
    this.lookups = Objects.requireNonNull(lookups, "lookups");
  }

  @Override
  public List<Route> routes() {
    return List.of(Route.get("/v1/block/{hash+}", "block", this::block));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(BlockRoutes.class, "block.openapi.json");
  }

  private FullHttpResponse block(RouteRequest request) {
    byte[] hash = HashParam.parse(request.param(0), "malformed_hash", "block hash");
    Optional<BlockAnswer> answer = lookups.block(hash);
    ByteBuf body = request.ctx().alloc().buffer(2 * Json.MAX_TX_ANSWER_BYTES);
    Json.writeBlock(body, hash, answer.orElse(null), TxRoutes.HEX_SCRATCH.get());
    FullHttpResponse response =
        Responses.response(
            answer.isPresent() ? HttpResponseStatus.OK : HttpResponseStatus.NOT_FOUND,
            Responses.APPLICATION_JSON,
            body);
    answer.ifPresent(
        b ->
            response
                .headers()
                .set(
                    HttpHeaderNames.CACHE_CONTROL,
                    Finality.cacheControl(b.status(), b.confirmations())));
    return response;
  }
}
