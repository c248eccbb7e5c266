package io.bbfindex.app.route;

import io.netty.handler.codec.http.FullHttpResponse;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The handler of a route whose answer is not one response but a stream the route writes itself for
 * as long as the connection lives (Server-Sent Events, a WebSocket upgrade). {@link #open} either
 * refuses with {@link Refusal.Exception} before writing anything (the dispatcher answers it as any
 * refusal) or takes the channel over.
 */
public final class StreamHandler implements RouteHandler {
  private final Consumer<RouteRequest> open;

  /** {@code open} validates the request and starts the stream on {@code request.ctx()}. */
  public StreamHandler(Consumer<RouteRequest> open) {
    this.open = Objects.requireNonNull(open, "open");
  }

  public void open(RouteRequest request) {
    open.accept(request);
  }

  /** Never called: the dispatcher calls {@link #open} for a stream route. */
  @Override
  public FullHttpResponse answer(RouteRequest request) {
    throw new IllegalStateException("a stream route is opened, not answered");
  }
}
