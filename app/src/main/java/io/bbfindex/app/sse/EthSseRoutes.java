package io.bbfindex.app.sse;

import io.bbfindex.app.push.EthPushHub;
import io.bbfindex.app.push.PushMetrics;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.TxHash;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Server-Sent Events for an Ethereum transaction under {@code serve --eth-rpc}: {@code GET
 * /v1/eth/tx/{hash}/events}, its current state ({@code pending}, {@code confirmed}, {@code
 * unknown}), then {@code pending}, {@code confirmed} and {@code reorged} as the index's follower
 * sees them; the Bitcoin streams' framing, heartbeat and {@code Last-Event-ID} resume ({@link
 * SseStream}).
 */
public final class EthSseRoutes implements Feature {
  private final EthPushHub hub;
  private final Duration heartbeat;

  public EthSseRoutes(EthPushHub hub, Duration heartbeat) {
    this.hub = Objects.requireNonNull(hub, "hub");
    this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
  }

  @Override
  public List<Route> routes() {
    return List.of(Route.stream("/v1/eth/tx/{hash}/events", "eth_tx_events", this::txEvents));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(EthSseRoutes.class, "eth-openapi.json");
  }

  private void txEvents(RouteRequest request) {
    String text = request.param(0);
    String problem = TxHash.problem(text);
    if (problem != null) {
      throw Refusal.badRequest(
              "malformed_hash", "transaction hash must be 0x followed by 64 hex digits: " + problem)
          .toException();
    }
    byte[] key = TxHash.parseBytes(text);
    String topic = EthPushHub.topic(key);
    OptionalLong last = SseRoutes.lastEventId(request);
    SseStream.start(
        request.ctx(),
        request.http().protocolVersion(),
        hub.metrics(),
        PushMetrics.SSE_ETH_TX,
        heartbeat,
        s -> {
          try {
            hub.subscribe(key, s, last);
          } catch (EthIndex.CatchingUpException e) {
            // as GET /v1/eth/tx/{hash} answers: no state to stand behind yet
            throw new Refusal(
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    e instanceof EthIndex.ChainReplacedException ? "chain_replaced" : "catching_up",
                    e.getMessage())
                .toException();
          }
        },
        s -> hub.unsubscribe(topic, s));
  }
}
