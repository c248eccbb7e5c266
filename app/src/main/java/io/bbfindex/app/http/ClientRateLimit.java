package io.bbfindex.app.http;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.bbfindex.app.metrics.ConnectionMetrics;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A token bucket per client IP (Bucket4j): {@code burst} requests at once, refilled at {@code rate}
 * per second. A request over it gets 429 with {@code Retry-After} (whole seconds until a token is
 * back) and the connection stays open. Counts requests, not connections, and every route alike
 * except the {@link HealthRoutes}, which are neither counted nor refused.
 *
 * <p>Buckets of clients not seen for the time a bucket takes to refill are dropped (Caffeine): such
 * a bucket is full again, so forgetting it changes no answer, and the map stays bounded.
 */
@Sharable
final class ClientRateLimit extends ChannelInboundHandlerAdapter {
  /** Clients tracked at most; beyond it the least recently seen are forgotten first. */
  private static final long MAX_CLIENTS = 100_000;

  private final ConnectionMetrics metrics;
  private final LoadingCache<String, Bucket> buckets;

  ClientRateLimit(int rate, int burst, ConnectionMetrics metrics) {
    this.metrics = metrics;
    Duration refill = Duration.ofNanos(TimeUnit.SECONDS.toNanos(burst) / rate).plusSeconds(1);
    this.buckets =
        Caffeine.newBuilder()
            .maximumSize(MAX_CLIENTS)
            .expireAfterAccess(refill)
            .build(
                client ->
                    Bucket.builder()
                        .addLimit(
                            limit ->
                                limit.capacity(burst).refillGreedy(rate, Duration.ofSeconds(1)))
                        .build());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request) || HealthRoutes.is(request.uri())) {
      ctx.fireChannelRead(msg);
      return;
    }
    ConsumptionProbe probe =
        buckets.get(client(ctx.channel().remoteAddress())).tryConsumeAndReturnRemaining(1);
    if (probe.isConsumed()) {
      ctx.fireChannelRead(msg);
      return;
    }
    metrics.rateLimited();
    long retryAfter =
        Math.max(1, TimeUnit.NANOSECONDS.toSeconds(probe.getNanosToWaitForRefill() + 999_999_999L));
    FullHttpResponse tooMany =
        Replies.retryLater(
            HttpResponseStatus.TOO_MANY_REQUESTS,
            "rate_limited",
            "this client is over its request rate; retry after " + retryAfter + " s",
            retryAfter);
    try {
      Replies.answer(ctx, request, tooMany);
    } finally {
      request.release();
    }
  }

  /** The client's IP: all connections of one address share a bucket. */
  private static String client(SocketAddress remote) {
    return remote instanceof InetSocketAddress inet && inet.getAddress() != null
        ? inet.getAddress().getHostAddress()
        : String.valueOf(remote);
  }
}
