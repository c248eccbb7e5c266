package io.bbfindex.app.http;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.app.metrics.ConnectionMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.flow.FlowControlHandler;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The pipeline of one connection, one concern per handler, in order: request timeout (first byte),
 * idle timeout, HTTP/1.1 codec, {@code Cache-Control} default, connection cap, body aggregation
 * bounded by {@code maxBodyBytes} (JSON 413 beyond it), {@code Expect: 100-continue}, the
 * connection cap's health reserve, request timeout (complete), backpressure (flow control and
 * writability), version check (505), {@code Host} check (421), CORS, rate limit (429), {@code
 * HEAD}, then the shared {@link ApiHandler}. Guards that write answers sit after the codec so their
 * answers are encoded, and before CORS or after it as their answers should or should not carry CORS
 * headers.
 */
public final class HttpInitializer extends ChannelInitializer<Channel> {
  /**
   * Default request body limit: a full batch of 10,000 txids is about 670 KB of JSON (66 bytes per
   * id plus separators); 1 MiB leaves room for whitespace and nothing much more.
   */
  public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;

  private final ApiHandler handler;
  private final int maxBodyBytes;
  private final HttpOptions options;
  private final ConnectionMetrics metrics;
  private final ConnectionCap cap;
  private final WritabilityGate gate;
  private final @Nullable ClientRateLimit rateLimit;
  private final CacheControl cacheControl = new CacheControl();
  private final VersionCheck versionCheck = new VersionCheck();
  private final HeadRequests head = new HeadRequests();
  private final HostCheck hostCheck;

  /** With {@link HttpOptions#DEFAULTS} and meters nobody reads (handler tests). */
  public HttpInitializer(ApiHandler handler, int maxBodyBytes) {
    this(
        handler,
        maxBodyBytes,
        HttpOptions.DEFAULTS,
        new ConnectionMetrics(new SimpleMeterRegistry()));
  }

  public HttpInitializer(
      ApiHandler handler, int maxBodyBytes, HttpOptions options, ConnectionMetrics metrics) {
    requireArgument(maxBodyBytes > 0, "maxBodyBytes must be positive", maxBodyBytes);
    this.handler = Objects.requireNonNull(handler, "handler");
    this.maxBodyBytes = maxBodyBytes;
    this.options = Objects.requireNonNull(options, "options");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.cap = new ConnectionCap(options.maxConnections(), metrics);
    this.gate = new WritabilityGate(metrics);
    this.hostCheck = new HostCheck(options.allowedHosts());
    this.rateLimit =
        options.rateLimited()
            ? new ClientRateLimit(options.rateLimit(), options.rateBurst(), metrics)
            : null;
    metrics.bindConnections(cap::open, cap::queuedBytes);
  }

  /**
   * The handlers that only make sense between HTTP requests: an upgraded connection (WebSocket)
   * drops them, else the request timeout would take its frames for a request that never completes.
   */
  private static final List<String> HTTP_ONLY =
      List.of(
          "request-first-byte",
          "cache-control",
          "bodiless",
          "aggregator",
          "expect-continue",
          "health-reserve",
          "request-complete",
          "version",
          "host",
          "cors",
          "rate-limit",
          "head");

  /** Removes the HTTP-only handlers from an upgraded connection's pipeline. */
  public static void leaveHttp(ChannelPipeline p) {
    for (String name : HTTP_ONLY) {
      if (p.get(name) != null) {
        p.remove(name);
      }
    }
  }

  @Override
  protected void initChannel(Channel ch) {
    ch.config().setWriteBufferWaterMark(WritabilityGate.WATER_MARK);
    RequestTimeout requestTimeout = new RequestTimeout(options.requestTimeout(), metrics);
    ChannelPipeline p = ch.pipeline();
    p.addLast("request-first-byte", requestTimeout.firstByte());
    p.addLast("idle-timeout", new IdleTimeout(options.idleTimeout(), metrics));
    p.addLast("codec", new HttpServerCodec());
    p.addLast("cache-control", cacheControl);
    p.addLast("connection-cap", cap);
    // The aggregator answers "Expect: 100-continue" itself, with a JSON 413 when the announced
    // length is over the limit, before the client sends the body. The expect-continue handler
    // behind it only sees requests the aggregator let through, so it is a safety net.
    p.addLast("bodiless", new BodilessRequests()); // a GET skips the aggregator's buffers
    p.addLast("aggregator", new JsonObjectAggregator(maxBodyBytes));
    p.addLast("expect-continue", new HttpServerExpectContinueHandler());
    p.addLast("health-reserve", cap.reserveGuard());
    p.addLast("request-complete", requestTimeout.complete());
    // Holds decoded requests while reads are paused, so a read batch of pipelined requests is not
    // answered all at once into a connection whose peer reads nothing.
    p.addLast("flow-control", new FlowControlHandler());
    p.addLast("writability", gate);
    p.addLast("version", versionCheck);
    p.addLast("host", hostCheck);
    if (options.cors()) {
      p.addLast("cors", CorsPolicy.of(options.corsOrigins()));
    }
    if (rateLimit != null) {
      p.addLast("rate-limit", rateLimit);
    }
    p.addLast("head", head);
    p.addLast("api", handler);
  }
}
