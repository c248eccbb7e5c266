package io.bbfindex.app.http;

import io.bbfindex.app.lookup.BackendUnavailableException;
import io.bbfindex.app.lookup.StoreInconsistentException;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.RouteRequest;
import io.bbfindex.app.route.RouteTable;
import io.bbfindex.app.route.StreamHandler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Hands each decoded request to the route the {@link RouteTable} resolves it to, and writes the
 * answer. Knows no route: the features own them.
 *
 * <p>Guard clauses first: an undecodable request is a 400/414/431 and the connection closes (the
 * byte stream can no longer be trusted); a path no route serves is the table's 404, a method its
 * routes do not accept the table's 405 with {@code Allow}; then the route validates its own input
 * (400 that names the problem, 413 over a batch limit). Anything unexpected is logged with the
 * route and answered with a JSON 500, so no stack trace reaches a client and the channel keeps
 * serving.
 *
 * <p>Keep-alive is explicit: a response to a keep-alive request is only written, and {@link
 * #channelReadComplete} flushes once per read batch (so pipelined requests share one syscall); a
 * non-keep-alive response is flushed and the connection closed after it.
 *
 * <p>Stateless apart from its table and meters, so one instance serves every channel.
 */
@Sharable
public final class ApiHandler extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(ApiHandler.class.getName());

  private final RouteTable routes;
  private final Map<String, Timer> timers = new HashMap<>();
  private final Map<String, Counter> serverErrors = new HashMap<>();

  public ApiHandler(RouteTable routes, Metrics metrics) {
    this.routes = Objects.requireNonNull(routes, "routes");
    for (String tag : routes.tags()) {
      timers.put(tag, metrics.requestTimer(tag));
      serverErrors.put(tag, metrics.serverErrors(tag));
    }
  }

  /** The meter of a route's tag: the constructor registers one for every tag of the table. */
  private static <T> T meter(Map<String, T> byTag, String tag) {
    T meter = byTag.get(tag);
    if (meter == null) {
      throw new IllegalStateException("no meter for route tag " + tag);
    }
    return meter;
  }

  /** The routes this handler serves. */
  public RouteTable routes() {
    return routes;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    long start = System.nanoTime();
    String tag = RouteTable.OTHER_TAG;
    try {
      DecoderResult decoded = request.decoderResult();
      if (decoded.isFailure()) {
        write(ctx, request, error(undecodable(decoded.cause())), false);
        return;
      }
      String uri = request.uri();
      int query = uri.indexOf('?');
      String path = query < 0 ? uri : uri.substring(0, query);
      RouteTable.Resolution resolution = routes.resolve(request.method(), path);
      tag = resolution.tag();
      FullHttpResponse response;
      try {
        response =
            switch (resolution) {
              case RouteTable.Found found
                  when found.route().handler() instanceof StreamHandler stream -> {
                stream.open(new RouteRequest(ctx, request, path, found.params()));
                yield null; // the stream owns the channel from here on
              }
              case RouteTable.Found found ->
                  found
                      .route()
                      .handler()
                      .answer(new RouteRequest(ctx, request, path, found.params()));
              case RouteTable.Refused refused -> refused.response();
            };
        if (response == null) {
          return;
        }
      } catch (Refusal.Exception refused) {
        response = Responses.error(refused.refusal());
      } catch (BackendUnavailableException unavailable) {
        boolean store = unavailable.code().equals(BackendUnavailableException.STORE_UNAVAILABLE);
        response =
            error(
                new ApiError(
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    unavailable.code(),
                    store
                        ? "the filter store is being verified again; retry shortly"
                        : unavailable.getMessage()));
        response.headers().set(HttpHeaderNames.RETRY_AFTER, 1);
      } catch (StoreInconsistentException inconsistent) {
        // counted by the lookup that found it; neither "present" nor "absent" can be answered
        response =
            error(
                new ApiError(
                    HttpResponseStatus.INTERNAL_SERVER_ERROR,
                    "store_inconsistent",
                    inconsistent.getMessage()));
      } catch (RuntimeException bug) {
        LOG.log(Level.ERROR, "internal error on " + request.method() + " route " + tag, bug);
        response =
            error(
                new ApiError(
                    HttpResponseStatus.INTERNAL_SERVER_ERROR,
                    "internal_error",
                    "the server failed to answer; the failure is in its log"));
      }
      if (response.status().codeClass() == HttpStatusClass.SERVER_ERROR) {
        meter(serverErrors, tag).increment(); // the alerts' error rate and store-unavailable
      }
      write(ctx, request, response, HttpUtil.isKeepAlive(request));
    } finally {
      request.release();
      meter(timers, tag).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Reached only for transport errors (a reset peer, a failed write, a client that hung up in
    // the middle of a body): request errors are answered in channelRead. The connection is
    // unusable, so close it; only the unexpected is worth a warning.
    boolean routine =
        cause instanceof IOException || cause instanceof PrematureChannelClosureException;
    Level level = routine ? Level.DEBUG : Level.WARNING;
    LOG.log(level, "closing " + ctx.channel().remoteAddress() + " after a transport error", cause);
    ctx.close();
  }

  private static ApiError undecodable(Throwable cause) {
    if (cause instanceof TooLongHttpLineException) {
      return new ApiError(
          HttpResponseStatus.REQUEST_URI_TOO_LONG, "uri_too_long", "the request line is too long");
    }
    if (cause instanceof TooLongHttpHeaderException) {
      return new ApiError(
          HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
          "headers_too_large",
          "the request headers are too large");
    }
    if (cause instanceof TooLongFrameException) {
      return new ApiError(
          HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
          "payload_too_large",
          "the request is too large");
    }
    return ApiError.badRequest("bad_request", "the request is not valid HTTP/1.1");
  }

  /** A JSON error response {@code {"error", "detail"}}; Jackson escapes the detail. */
  static FullHttpResponse error(ApiError e) {
    return Responses.error(new Refusal(e.status(), e.error(), e.detail()));
  }

  /**
   * Writes (keep-alive) or writes, flushes and closes; the response's version follows the
   * request's.
   */
  private static void write(
      ChannelHandlerContext ctx,
      FullHttpRequest request,
      FullHttpResponse response,
      boolean keepAlive) {
    response.setProtocolVersion(request.protocolVersion());
    if (keepAlive) {
      if (request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      }
      ctx.write(response, ctx.voidPromise());
    } else {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
