package io.bbfindex.app.push;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The push meters: {@code bbf_push_subscribers{kind}} (open SSE streams and WebSocket connections),
 * {@code bbf_push_notifications_total{kind}} (events written, by event kind), {@code
 * bbf_push_notify_latency_seconds} (from the follower applying a change to its event written to a
 * subscriber) and {@code bbf_push_slow_consumers_closed_total} (connections closed because they did
 * not read).
 */
public final class PushMetrics {
  /** Subscriber kinds: the gauge's {@code kind} tag. */
  public static final String SSE_TX = "sse_tx";

  public static final String SSE_BLOCKS = "sse_blocks";
  public static final String WEBSOCKET = "websocket";

  /** SSE streams of Ethereum transactions ({@code serve --eth-rpc}). */
  public static final String SSE_ETH_TX = "sse_eth_tx";

  private final MeterRegistry registry;
  private final Map<String, AtomicInteger> subscribers = new ConcurrentHashMap<>();
  private final Map<String, Counter> notifications = new ConcurrentHashMap<>();
  private final Timer latency;
  private final Counter slowConsumers;

  public PushMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (String kind : new String[] {SSE_TX, SSE_BLOCKS, WEBSOCKET, SSE_ETH_TX}) {
      AtomicInteger n = new AtomicInteger();
      subscribers.put(kind, n);
      Gauge.builder("bbf.push.subscribers", n, AtomicInteger::get)
          .tag("kind", kind)
          .description("open push subscriptions (SSE streams, WebSocket connections)")
          .register(registry);
    }
    this.latency =
        Timer.builder("bbf.push.notify.latency")
            .description("from the follower applying a change to its event written to a client")
            .publishPercentileHistogram()
            .maximumExpectedValue(Duration.ofSeconds(10))
            .register(registry);
    this.slowConsumers =
        Counter.builder("bbf.push.slow.consumers.closed")
            .description("push connections closed because they did not read their events")
            .register(registry);
  }

  public void opened(String kind) {
    subscribers(kind).incrementAndGet();
  }

  public void closed(String kind) {
    subscribers(kind).decrementAndGet();
  }

  private AtomicInteger subscribers(String kind) {
    AtomicInteger n = subscribers.get(kind);
    if (n == null) {
      throw new IllegalArgumentException("no push subscriber kind " + kind);
    }
    return n;
  }

  /** An event written to a client; a live one's latency is recorded. */
  public void notified(PushEvent event) {
    notifications
        .computeIfAbsent(
            event.kind(),
            k ->
                Counter.builder("bbf.push.notifications")
                    .tag("kind", k)
                    .description("push events written to clients, by event kind")
                    .register(registry))
        .increment();
    if (event.live()) {
      latency.record(System.nanoTime() - event.observedNanos(), TimeUnit.NANOSECONDS);
    }
  }

  public void slowConsumerClosed() {
    slowConsumers.increment();
  }
}
