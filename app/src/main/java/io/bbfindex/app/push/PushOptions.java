package io.bbfindex.app.push;

import static io.bbfindex.filters.Arguments.requireArgument;

import java.time.Duration;

/**
 * The push features' settings under {@code serve --follow}.
 *
 * @param heartbeat how often an idle SSE stream gets a comment line and a WebSocket a ping
 * @param maxTracked txids one WebSocket connection may track ({@code --max-tracked})
 */
public record PushOptions(Duration heartbeat, int maxTracked) {
  public static final PushOptions DEFAULTS = new PushOptions(Duration.ofSeconds(15), 1_000);

  public PushOptions {
    requireArgument(heartbeat.isPositive(), "heartbeat must be positive", heartbeat.toMillis());
    requireArgument(maxTracked >= 1, "maxTracked must be >= 1", maxTracked);
  }
}
