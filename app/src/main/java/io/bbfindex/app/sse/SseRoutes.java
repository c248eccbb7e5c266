package io.bbfindex.app.sse;

import io.bbfindex.app.push.PushHub;
import io.bbfindex.app.push.PushMetrics;
import io.bbfindex.app.push.TxidParam;
import io.bbfindex.app.route.Feature;
import io.bbfindex.app.route.OpenApiFragment;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Route;
import io.bbfindex.app.route.RouteRequest;
import io.bbfindex.ingest.encoding.Hash32;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Server-Sent Events ({@code text/event-stream}) for curl, browsers' {@code EventSource} and
 * proxies: {@code GET /v1/tx/{txid}/events} (the tx's current state, then each change) and {@code
 * GET /v1/blocks/events} (each block connected or disconnected). {@code Last-Event-ID} resumes
 * after the event it names.
 */
public final class SseRoutes implements Feature {
  /** How often a comment line keeps an idle stream visibly alive. */
  public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(15);

  private final PushHub hub;
  private final Duration heartbeat;

  public SseRoutes(PushHub hub, Duration heartbeat) {
    this.hub = Objects.requireNonNull(hub, "hub");
    this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
  }

  @Override
  public List<Route> routes() {
    return List.of(
        Route.stream("/v1/tx/{txid}/events", "tx_events", this::txEvents),
        Route.stream("/v1/blocks/events", "block_events", this::blockEvents));
  }

  @Override
  public OpenApiFragment openApi() {
    return OpenApiFragment.load(SseRoutes.class, "openapi.json");
  }

  private void txEvents(RouteRequest request) {
    Hash32 txid = TxidParam.parse(request.param(0)).orElseThrow(SseRoutes::malformedTxid);
    OptionalLong last = lastEventId(request);
    stream(
        request,
        PushMetrics.SSE_TX,
        s -> hub.subscribeTx(txid, s, last),
        s -> hub.unsubscribe(txid.displayHex(), s));
  }

  private void blockEvents(RouteRequest request) {
    OptionalLong last = lastEventId(request);
    stream(
        request,
        PushMetrics.SSE_BLOCKS,
        s -> hub.subscribeBlocks(s, last),
        s -> hub.unsubscribe(PushHub.BLOCKS, s));
  }

  private void stream(
      RouteRequest request,
      String kind,
      Consumer<SseStream> subscribe,
      Consumer<SseStream> unsubscribe) {
    SseStream.start(
        request.ctx(),
        request.http().protocolVersion(),
        hub.metrics(),
        kind,
        heartbeat,
        subscribe,
        unsubscribe);
  }

  private static Refusal.Exception malformedTxid() {
    return Refusal.badRequest("malformed_txid", "the txid must be 64 hex characters").toException();
  }

  /** The {@code Last-Event-ID} header: absent, or a decimal id this server gave out. */
  static OptionalLong lastEventId(RouteRequest request) {
    String value = request.http().headers().get("Last-Event-ID");
    if (value == null || value.isBlank()) {
      return OptionalLong.empty();
    }
    if (!value.strip().matches("[0-9]{1,18}")) {
      throw Refusal.badRequest(
              "malformed_last_event_id", "Last-Event-ID must be the decimal id of an event")
          .toException();
    }
    return OptionalLong.of(Long.parseLong(value.strip()));
  }
}
