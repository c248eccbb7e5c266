package io.bbfindex.app.http;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import java.util.Objects;

/**
 * The pipeline of one connection: HTTP/1.1 codec, body aggregation bounded by {@code maxBodyBytes}
 * (JSON 413 beyond it), {@code Expect: 100-continue} handling, then the shared {@link ApiHandler}.
 */
public final class HttpInitializer extends ChannelInitializer<Channel> {
  /**
   * Default request body limit: a full batch of 10,000 txids is about 670 KB of JSON (66 bytes per
   * id plus separators); 1 MiB leaves room for whitespace and nothing much more.
   */
  public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;

  private final ApiHandler handler;
  private final int maxBodyBytes;

  public HttpInitializer(ApiHandler handler, int maxBodyBytes) {
    requireArgument(maxBodyBytes > 0, "maxBodyBytes must be positive", maxBodyBytes);
    this.handler = Objects.requireNonNull(handler, "handler");
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  protected void initChannel(Channel ch) {
    ChannelPipeline p = ch.pipeline();
    p.addLast("codec", new HttpServerCodec());
    // The aggregator answers "Expect: 100-continue" itself, with a JSON 413 when the announced
    // length is over the limit, before the client sends the body. The expect-continue handler
    // behind it only sees requests the aggregator let through, so it is a safety net.
    p.addLast("aggregator", new JsonObjectAggregator(maxBodyBytes));
    p.addLast("expect-continue", new HttpServerExpectContinueHandler());
    p.addLast("api", handler);
  }
}
