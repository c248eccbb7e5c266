package io.bbfindex.app.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.LongSupplier;

/**
 * The meters of the HTTP server's connection guards (cap, timeouts, rate limit, backpressure);
 * names documented in {@code app/METRICS.md} next to {@link Metrics}' own.
 */
public final class ConnectionMetrics {
  /** Counter {@code bbf_http_connections_refused_total}: refused over {@code --max-connections}. */
  public static final String CONNECTIONS_REFUSED = "bbf.http.connections.refused";

  /** Counter {@code bbf_http_connections_timed_out_total{reason="idle"|"request"}}. */
  public static final String CONNECTIONS_TIMED_OUT = "bbf.http.connections.timed.out";

  /** Counter {@code bbf_http_requests_rate_limited_total}: requests answered 429. */
  public static final String REQUESTS_RATE_LIMITED = "bbf.http.requests.rate.limited";

  /** Counter {@code bbf_http_reads_paused_total}: a connection stopped reading, its peer slow. */
  public static final String READS_PAUSED = "bbf.http.reads.paused";

  /** Gauge {@code bbf_http_connections_open}. */
  public static final String CONNECTIONS_OPEN = "bbf.http.connections.open";

  /** Gauge {@code bbf_http_outbound_queued_bytes}: response bytes not yet taken by the kernel. */
  public static final String OUTBOUND_QUEUED = "bbf.http.outbound.queued.bytes";

  public static final String TAG_REASON = "reason";

  /** Why a connection was closed by a timeout. */
  public enum Timeout {
    /** Neither read nor written for {@code --idle-timeout}. */
    IDLE,
    /** A request that did not arrive in full within {@code --request-timeout}. */
    REQUEST
  }

  private final MeterRegistry registry;
  private final Counter refused;
  private final Counter idle;
  private final Counter request;
  private final Counter limited;
  private final Counter paused;

  public ConnectionMetrics(MeterRegistry registry) {
    this.registry = registry;
    refused =
        Counter.builder(CONNECTIONS_REFUSED)
            .description("Connections refused because --max-connections were open")
            .register(registry);
    idle = timedOut("idle");
    request = timedOut("request");
    limited =
        Counter.builder(REQUESTS_RATE_LIMITED)
            .description("Requests answered 429 because their client IP was over --rate-limit")
            .register(registry);
    paused =
        Counter.builder(READS_PAUSED)
            .description(
                "Times a connection stopped reading requests because its peer did not read the"
                    + " answers")
            .register(registry);
  }

  private Counter timedOut(String reason) {
    return Counter.builder(CONNECTIONS_TIMED_OUT)
        .description("Connections closed by --idle-timeout (idle) or --request-timeout (request)")
        .tag(TAG_REASON, reason)
        .register(registry);
  }

  /**
   * Registers the gauges of the open connections.
   *
   * @param open connections open now
   * @param queued response bytes written by the server and not yet taken by the kernel
   */
  public void bindConnections(LongSupplier open, LongSupplier queued) {
    Gauge.builder(CONNECTIONS_OPEN, open::getAsLong)
        .description("Open HTTP connections")
        .strongReference(true)
        .register(registry);
    Gauge.builder(OUTBOUND_QUEUED, queued::getAsLong)
        .description("Response bytes queued in the server, not yet taken by the kernel")
        .strongReference(true)
        .register(registry);
  }

  public void connectionRefused() {
    refused.increment();
  }

  public void timedOut(Timeout why) {
    (why == Timeout.IDLE ? idle : request).increment();
  }

  public void rateLimited() {
    limited.increment();
  }

  public void readsPaused() {
    paused.increment();
  }
}
