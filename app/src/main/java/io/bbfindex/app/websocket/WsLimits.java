package io.bbfindex.app.websocket;

import static io.bbfindex.filters.Arguments.requireArgument;

import java.time.Duration;

/**
 * Per-connection bounds of the WebSocket.
 *
 * @param maxTracked txids one connection may track ({@code --max-tracked}); mempool.space's own
 *     default is 1,000 as well
 * @param maxMessageBytes largest text message (all its frames): a full {@code track-txs} of {@code
 *     maxTracked} ids fits (67 bytes each)
 * @param ping how often the server pings, so that an idle but live connection is not closed as idle
 *     and a dead one is found
 */
public record WsLimits(int maxTracked, int maxMessageBytes, Duration ping) {
  public WsLimits {
    requireArgument(maxTracked >= 1, "maxTracked must be >= 1", maxTracked);
    requireArgument(maxMessageBytes >= 1024, "maxMessageBytes must be >= 1024", maxMessageBytes);
    requireArgument(ping.isPositive(), "ping must be positive", ping.toMillis());
  }

  /** {@code maxTracked} ids, messages sized to hold them, a ping every 15 s. */
  public static WsLimits of(int maxTracked, Duration ping) {
    return new WsLimits(maxTracked, Math.max(64 * 1024, maxTracked * 70 + 1024), ping);
  }
}
