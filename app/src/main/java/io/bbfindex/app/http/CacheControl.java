package io.bbfindex.app.http;

import io.bbfindex.app.lookup.ChainStatus;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AsciiString;

/**
 * {@code Cache-Control} by finality. A route that knows how final its answer is sets the header
 * with {@link #forAnswer}; every other answer (errors, 404s, unknown txids, the tip, status,
 * metrics, health) leaves here with {@code no-store}, so nothing that can change is ever cached by
 * accident, whatever route a later change adds.
 */
@Sharable
final class CacheControl extends ChannelOutboundHandlerAdapter {
  /** Confirmations from which an answer is treated as final: no reorg that deep is expected. */
  static final int FINAL_CONFIRMATIONS = 100;

  /** Confirmations from which an answer may be cached briefly. */
  static final int SETTLED_CONFIRMATIONS = 6;

  static final AsciiString NO_STORE = AsciiString.cached("no-store");

  /**
   * Deeply confirmed: where the transaction or block is will not change. (The {@code confirmations}
   * count in a cached copy only grows stale by the day's blocks, a lower bound.)
   */
  static final AsciiString FINAL = AsciiString.cached("public, max-age=86400, immutable");

  /** Past the usual 6 blocks but shallow: a minute, so a deep reorg is seen soon. */
  static final AsciiString SETTLED = AsciiString.cached("public, max-age=60");

  /**
   * The header for an answer about a transaction or block: {@code status} and {@code confirmations}
   * as the API reports them.
   */
  static AsciiString forAnswer(ChainStatus status, int confirmations) {
    if (status != ChainStatus.CONFIRMED || confirmations < SETTLED_CONFIRMATIONS) {
      return NO_STORE;
    }
    return confirmations >= FINAL_CONFIRMATIONS ? FINAL : SETTLED;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof HttpResponse response
        && response.status().code() >= 200
        && !response.headers().contains(HttpHeaderNames.CACHE_CONTROL)) {
      response.headers().set(HttpHeaderNames.CACHE_CONTROL, NO_STORE);
    }
    ctx.write(msg, promise);
  }
}
