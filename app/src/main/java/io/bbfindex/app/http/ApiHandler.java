package io.bbfindex.app.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.app.esplora.EsploraApi;
import io.bbfindex.app.eth.EthApi;
import io.bbfindex.app.lookup.BackendUnavailableException;
import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.wallet.Reply;
import io.bbfindex.app.wallet.WalletApi;
import io.bbfindex.app.wallet.WalletException;
import io.bbfindex.ingest.encoding.HashKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Routes decoded requests to the lookup service and writes JSON answers.
 *
 * <p>Guard clauses first: an undecodable request is a 400/414/431 and the connection closes (the
 * byte stream can no longer be trusted); an unknown path is a 404; a known path with another method
 * is a 405 with {@code Allow}; then the route handler validates its own input (400 that names the
 * problem, 413 over the batch limit). Anything unexpected is logged with the route and answered
 * with a JSON 500, so no stack trace reaches a client and the channel keeps serving.
 *
 * <p>Keep-alive is explicit: a response to a keep-alive request is only written, and {@link
 * #channelReadComplete} flushes once per read batch (so pipelined requests share one syscall); a
 * non-keep-alive response is flushed and the connection closed after it.
 *
 * <p>Lookups run on the event loop. WHY: a filter "no" is a few cache lines, and a "maybe" is one
 * LevelDB get served from the page cache in microseconds; a hand-off to another pool would cost
 * more than the work, and keeps pipelined answers in order for free.
 *
 * <p>Stateless apart from its collaborators, so one instance serves every channel.
 */
@Sharable
public final class ApiHandler extends ChannelInboundHandlerAdapter {
  /** Largest number of txids {@code POST /v1/tx/lookup} accepts in one request. */
  public static final int MAX_BATCH = 10_000;

  static final AsciiString APPLICATION_JSON = AsciiString.cached("application/json");
  static final AsciiString PROMETHEUS_TEXT =
      AsciiString.cached("text/plain; version=0.0.4; charset=utf-8");

  private static final System.Logger LOG = System.getLogger(ApiHandler.class.getName());
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final byte[] LIVE = Json.ascii("{\"status\":\"live\"}");

  /**
   * Response headers without per-header validation: every name and value the server sets is a
   * constant or a number, so checking them for forbidden characters on every response buys nothing
   * (request headers are still validated by the codec).
   */
  private static final HttpHeadersFactory HEADERS =
      DefaultHttpHeadersFactory.headersFactory().withValidation(false);

  private static final HttpHeadersFactory TRAILERS =
      DefaultHttpHeadersFactory.trailersFactory().withValidation(false);

  /** Scratch for hex digits, one per event-loop thread (handler instances are shared). */
  private static final ThreadLocal<byte[]> HEX_SCRATCH =
      ThreadLocal.withInitial(() -> new byte[HashKeys.HEX_CHARS]);

  private final LookupService lookups;
  private final TxBatchRoute batch;
  private final Supplier<String> metricsText;
  private final Map<Route, Timer> timers = new EnumMap<>(Route.class);
  private final Map<Route, Counter> serverErrors = new EnumMap<>(Route.class);

  /** The Ethereum routes, or null when the server has no Ethereum source. */
  private final EthApi eth;

  /** The raw-transaction and merkle-proof routes, or null (then they answer 404). */
  private final WalletApi wallet;

  /** The esplora-compatible routes under their prefix, or null when not served. */
  private final EsploraApi esplora;

  private final byte[] openApi;

  /**
   * @param metricsText renders the Prometheus exposition text for {@code GET /metrics}
   */
  public ApiHandler(LookupService lookups, Metrics metrics, Supplier<String> metricsText) {
    this(lookups, metrics, metricsText, null);
  }

  /**
   * @param eth the Ethereum routes ({@code /v1/eth/...}), or null for a Bitcoin-only server
   */
  public ApiHandler(
      LookupService lookups, Metrics metrics, Supplier<String> metricsText, EthApi eth) {
    this(lookups, metrics, metricsText, eth, null, null);
  }

  /**
   * @param wallet the {@code /v1/tx/{txid}/hex|raw|merkle-proof} routes, or null
   * @param esplora the esplora-compatible routes, or null
   */
  public ApiHandler(
      LookupService lookups,
      Metrics metrics,
      Supplier<String> metricsText,
      EthApi eth,
      WalletApi wallet,
      EsploraApi esplora) {
    this.eth = eth;
    this.wallet = wallet;
    this.esplora = esplora;
    this.openApi =
        OpenApiDocument.render(esplora == null ? EsploraApi.DEFAULT_PREFIX : esplora.prefix());
    this.lookups = Objects.requireNonNull(lookups, "lookups");
    this.batch = new TxBatchRoute(lookups, metrics);
    this.metricsText = Objects.requireNonNull(metricsText, "metricsText");
    for (Route r : Route.values()) {
      timers.put(r, metrics.requestTimer(r.tag()));
      serverErrors.put(r, metrics.serverErrors(r.tag()));
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    long start = System.nanoTime();
    Route route = Route.OTHER;
    try {
      DecoderResult decoded = request.decoderResult();
      if (decoded.isFailure()) {
        write(ctx, request, error(undecodable(decoded.cause())), false);
        return;
      }
      String uri = request.uri();
      int query = uri.indexOf('?');
      String path = query < 0 ? uri : uri.substring(0, query);
      route = esplora != null && esplora.owns(path) ? Route.ESPLORA : Route.of(path);
      FullHttpResponse response;
      try {
        response = dispatch(ctx, route, request, path);
      } catch (ApiError.Exception refused) {
        response = error(refused.error());
      } catch (BackendUnavailableException unavailable) {
        response =
            error(
                new ApiError(
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "store_unavailable",
                    "the filter store is being verified again; retry shortly"));
      } catch (RuntimeException bug) {
        LOG.log(
            Level.ERROR, "internal error on " + request.method() + " route " + route.tag(), bug);
        response =
            error(
                new ApiError(
                    HttpResponseStatus.INTERNAL_SERVER_ERROR,
                    "internal_error",
                    "the server failed to answer; the failure is in its log"));
      }
      if (response.status().codeClass() == HttpStatusClass.SERVER_ERROR) {
        serverErrors.get(route).increment(); // the alerts' error rate and store-unavailable
      }
      write(ctx, request, response, HttpUtil.isKeepAlive(request));
    } finally {
      request.release();
      timers.get(route).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
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

  private FullHttpResponse dispatch(
      ChannelHandlerContext ctx, Route route, FullHttpRequest request, String path) {
    if (route == Route.OTHER) {
      throw new ApiError.Exception(
          new ApiError(
              HttpResponseStatus.NOT_FOUND,
              "not_found",
              "no such route; routes: GET /v1/tx/{txid}, GET /v1/tx/{txid}/hex|raw|merkle-proof,"
                  + " POST /v1/tx/lookup, GET /v1/block/{hash}, GET /v1/filters, GET /v1/status,"
                  + " GET /v1/openapi.json, GET /metrics, GET /livez, GET /readyz"));
    }
    if (route == Route.ESPLORA) { // esplora's own methods (GET, and POST tx) and plain-text errors
      String crossSite =
          HttpMethod.POST.equals(request.method())
              ? CrossSitePosts.refusal(request.headers())
              : null;
      if (crossSite != null) {
        return reply(Reply.text(HttpResponseStatus.FORBIDDEN.code(), crossSite));
      }
      return reply(esplora.handle(request.method().name(), path, bytes(request.content())));
    }
    // A 405 keeps the connection: the aggregator has already consumed the whole body, so the
    // stream is at a clean request boundary and closing would only cost the client a reconnect.
    if (!route.method().equals(request.method())) {
      FullHttpResponse refused =
          error(
              new ApiError(
                  HttpResponseStatus.METHOD_NOT_ALLOWED,
                  "method_not_allowed",
                  "this route accepts " + route.method() + " only"));
      refused.headers().set(HttpHeaderNames.ALLOW, route.method().asciiName());
      return refused;
    }
    return switch (route) {
      case TX -> tx(ctx, path);
      case TX_BATCH -> batch.answer(ctx, request);
      case BLOCK -> block(ctx, path);
      case FILTERS -> json(HttpResponseStatus.OK, filtersBody());
      case STATUS -> json(HttpResponseStatus.OK, statusBody());
      case METRICS ->
          response(
              HttpResponseStatus.OK,
              PROMETHEUS_TEXT,
              Unpooled.wrappedBuffer(metricsText.get().getBytes(StandardCharsets.UTF_8)));
      case LIVEZ -> response(HttpResponseStatus.OK, APPLICATION_JSON, Unpooled.wrappedBuffer(LIVE));
      case READYZ -> readyz();
      case ETH_TX, ETH_TX_BATCH, ETH_STATUS -> eth(route, request, path);
      case TX_HEX -> walletRoute(path, WalletApi.HEX);
      case TX_RAW -> walletRoute(path, WalletApi.RAW);
      case TX_MERKLE_PROOF -> walletRoute(path, WalletApi.MERKLE_PROOF);
      case OPENAPI ->
          response(HttpResponseStatus.OK, APPLICATION_JSON, Unpooled.wrappedBuffer(openApi));
      case ESPLORA -> throw new IllegalStateException("answered above: " + route);
      case OTHER -> throw new IllegalStateException("unreachable: " + route);
    };
  }

  /** {@code GET /v1/tx/{txid}}: the hot path, written without object mapping. */
  private FullHttpResponse tx(ChannelHandlerContext ctx, String path) {
    byte[] key = new byte[HashKeys.KEY_BYTES];
    String problem =
        HashKeys.parseDisplayHex(path, Route.TX_PREFIX.length(), path.length(), key, 0);
    if (problem != null) {
      throw new ApiError.Exception(
          ApiError.badRequest("malformed_txid", "txid must be 64 hex characters: " + problem));
    }
    TxAnswer answer = lookups.tx(key).orElse(null);
    ByteBuf body = ctx.alloc().buffer(Json.MAX_TX_ANSWER_BYTES);
    Json.writeTx(body, key, 0, answer, HEX_SCRATCH.get());
    FullHttpResponse response =
        response(
            answer == null ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.OK,
            APPLICATION_JSON,
            body);
    if (answer != null) {
      response
          .headers()
          .set(
              HttpHeaderNames.CACHE_CONTROL,
              CacheControl.forAnswer(answer.status(), answer.confirmations()));
    }
    return response;
  }

  /** {@code GET /v1/block/{hash}}. */
  private FullHttpResponse block(ChannelHandlerContext ctx, String path) {
    byte[] hash = new byte[HashKeys.KEY_BYTES];
    String problem =
        HashKeys.parseDisplayHex(path, Route.BLOCK_PREFIX.length(), path.length(), hash, 0);
    if (problem != null) {
      throw new ApiError.Exception(
          ApiError.badRequest(
              "malformed_hash", "block hash must be 64 hex characters: " + problem));
    }
    Optional<BlockAnswer> answer = lookups.block(hash);
    ByteBuf body = ctx.alloc().buffer(2 * Json.MAX_TX_ANSWER_BYTES);
    Json.writeBlock(body, hash, answer.orElse(null), HEX_SCRATCH.get());
    FullHttpResponse response =
        response(
            answer.isPresent() ? HttpResponseStatus.OK : HttpResponseStatus.NOT_FOUND,
            APPLICATION_JSON,
            body);
    answer.ifPresent(
        b ->
            response
                .headers()
                .set(
                    HttpHeaderNames.CACHE_CONTROL,
                    CacheControl.forAnswer(b.status(), b.confirmations())));
    return response;
  }

  /**
   * {@code /v1/tx/{txid}/hex}, {@code /raw} and {@code /merkle-proof}: the stored bytes, re-hashed
   * before they leave; refusals are the API's JSON errors.
   */
  private FullHttpResponse walletRoute(String path, String suffix) {
    if (wallet == null) {
      throw new ApiError.Exception(
          new ApiError(
              HttpResponseStatus.NOT_FOUND, "no_block_data", "this server reads no block files"));
    }
    String txid = path.substring(Route.TX_PREFIX.length(), path.length() - suffix.length());
    try {
      return reply(
          switch (suffix) {
            case WalletApi.HEX -> wallet.hex(txid);
            case WalletApi.RAW -> wallet.raw(txid);
            default -> wallet.merkleProof(txid);
          });
    } catch (WalletException e) {
      throw new ApiError.Exception(
          new ApiError(HttpResponseStatus.valueOf(e.status()), e.code(), e.detail()));
    }
  }

  private static FullHttpResponse reply(Reply reply) {
    return response(
        HttpResponseStatus.valueOf(reply.status()),
        AsciiString.of(reply.contentType()),
        Unpooled.wrappedBuffer(reply.body()));
  }

  private static byte[] bytes(ByteBuf content) {
    byte[] b = new byte[content.readableBytes()];
    content.getBytes(content.readerIndex(), b);
    return b;
  }

  /** The {@code /v1/eth/...} routes, answered by {@link EthApi}. */
  private FullHttpResponse eth(Route route, FullHttpRequest request, String path) {
    if (eth == null) {
      throw new ApiError.Exception(
          new ApiError(
              HttpResponseStatus.NOT_FOUND,
              "no_eth_source",
              "this server has no Ethereum source; start it with serve --eth-rpc URL"));
    }
    EthApi.Reply reply =
        switch (route) {
          case ETH_TX -> eth.tx(path);
          case ETH_TX_BATCH -> eth.batch(new ByteBufInputStream(request.content().duplicate()));
          default -> eth.status();
        };
    FullHttpResponse response =
        response(
            HttpResponseStatus.valueOf(reply.status()),
            APPLICATION_JSON,
            Unpooled.wrappedBuffer(reply.body()));
    if (reply.retryAfter() > 0) {
      response.headers().set(HttpHeaderNames.RETRY_AFTER, reply.retryAfter());
    }
    return response;
  }

  private Object filtersBody() {
    ChainBackend backend = lookups.backend();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("tipHeight", backend.tipHeight());
    body.put("filters", backend.filters());
    return body;
  }

  /** {@code GET /v1/status}: the tip and the txindex's layout and location. */
  private Object statusBody() {
    ChainBackend backend = lookups.backend();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("tipHeight", backend.tipHeight());
    body.put("txindexLayout", backend.txindexLayout());
    body.put("txindexLocation", backend.txindexLocation());
    double lag = backend.txindexLagBlocks();
    body.put("txindexLagBlocks", Double.isNaN(lag) ? null : (long) lag);
    body.put("leveldbReads", backend.leveldbReads());
    body.putAll(backend.status()); // a following backend adds the node's tips and follow state
    return body;
  }

  private FullHttpResponse readyz() {
    ChainBackend backend = lookups.backend();
    if (!backend.ready()) {
      return error(
          new ApiError(
              HttpResponseStatus.SERVICE_UNAVAILABLE, "not_ready", backend.notReadyReason()));
    }
    if (eth != null && eth.index().chainReplaced() != null) {
      return error(
          new ApiError(
              HttpResponseStatus.SERVICE_UNAVAILABLE,
              "not_ready",
              "the Ethereum node is not on the index's chain: " + eth.index().chainReplaced()));
    }
    if (eth != null && !eth.index().caughtUp()) {
      return error(
          new ApiError(
              HttpResponseStatus.SERVICE_UNAVAILABLE,
              "not_ready",
              "the Ethereum index is catching up with the node"));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("ready", true);
    body.put("tipHeight", backend.tipHeight());
    return json(HttpResponseStatus.OK, body);
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
    Map<String, String> body = new LinkedHashMap<>();
    body.put("error", e.error());
    body.put("detail", e.detail());
    return json(e.status(), body);
  }

  private static FullHttpResponse json(HttpResponseStatus status, Object body) {
    try {
      return response(
          status, APPLICATION_JSON, Unpooled.wrappedBuffer(MAPPER.writeValueAsBytes(body)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + body.getClass().getSimpleName(), e);
    }
  }

  static FullHttpResponse response(
      HttpResponseStatus status, AsciiString contentType, ByteBuf body) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body, HEADERS, TRAILERS);
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, contentType)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    return response;
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
