package io.bbfindex.app.websocket;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bbfindex.app.push.PushEvent;
import io.bbfindex.app.push.PushHub;
import io.bbfindex.app.push.PushMetrics;
import io.bbfindex.app.push.Subscriber;
import io.bbfindex.app.push.TxidParam;
import io.bbfindex.ingest.encoding.Hash32;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One WebSocket connection speaking the transaction and block subset of mempool.space's protocol
 * ({@link MempoolSpaceMessages}). Every client message is a JSON object whose keys are requests; a
 * malformed one gets an {@code error} message and the connection stays up; a binary frame closes it
 * (1003). All state lives on the channel's event loop.
 */
final class WsSession extends SimpleChannelInboundHandler<WebSocketFrame> implements Subscriber {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final System.Logger LOG = System.getLogger(WsSession.class.getName());

  private final PushHub hub;
  private final WsLimits limits;
  private final Function<Integer, List<Map<String, Object>>> recentBlocks;
  private final Function<Hash32, Optional<Map<String, Object>>> blockJson;
  private final Channel channel;

  /** The txid of {@code track-tx}, if any. */
  private Optional<String> trackTx = Optional.empty();

  /** The txids of {@code track-txs}. */
  private final Set<String> trackTxs = new LinkedHashSet<>();

  /** {@code tracked-txs} entries of a new {@code track-txs}, sent together once all are in. */
  private final Map<String, Object> pendingTracked = new LinkedHashMap<>();

  private boolean wantBlocks;

  /** Set once the connection is closed for not reading. */
  private boolean dropped;

  /** How long a non-reading client's close frame may wait to leave before the socket is closed. */
  static final long SLOW_CLOSE_GRACE_MILLIS = 5_000;

  /** Messages a client may send in a second: a wallet sends a handful; more is a flood. */
  static final int MAX_MESSAGES_PER_SECOND = 100;

  private long windowStart = System.nanoTime();
  private int messagesInWindow;
  private final ScheduledFuture<?> pinger;

  WsSession(
      Channel channel,
      PushHub hub,
      WsLimits limits,
      Function<Integer, List<Map<String, Object>>> recentBlocks,
      Function<Hash32, Optional<Map<String, Object>>> blockJson) {
    this.channel = channel;
    this.hub = hub;
    this.limits = limits;
    this.recentBlocks = recentBlocks;
    this.blockJson = blockJson;
    long period = limits.ping().toMillis();
    this.pinger =
        channel
            .eventLoop()
            .scheduleAtFixedRate(
                () -> send(new PingWebSocketFrame()), period, period, TimeUnit.MILLISECONDS);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    hub.metrics().opened(PushMetrics.WEBSOCKET);
    ctx.channel().closeFuture().addListener(f -> ended());
  }

  private void ended() {
    pinger.cancel(false);
    trackTx.ifPresent(t -> leave(t));
    new ArrayList<>(trackTxs)
        .forEach(
            t -> {
              trackTxs.remove(t);
              leave(t);
            });
    if (wantBlocks) {
      hub.unsubscribe(PushHub.BLOCKS, this);
    }
    hub.metrics().closed(PushMetrics.WEBSOCKET);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
    switch (frame) {
      case TextWebSocketFrame text -> onMessage(text.text());
      case PingWebSocketFrame ping -> send(new PongWebSocketFrame(ping.content().retain()));
      case PongWebSocketFrame pong -> {}
      case CloseWebSocketFrame close ->
          ctx.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.NORMAL_CLOSURE))
              .addListener(ChannelFutureListener.CLOSE);
      case BinaryWebSocketFrame binary ->
          close(
              WebSocketCloseStatus.INVALID_MESSAGE_TYPE,
              "binary frames are not accepted: send JSON text");
      default -> close(WebSocketCloseStatus.PROTOCOL_ERROR, "unexpected frame");
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof TooLongFrameException
        || cause instanceof CorruptedWebSocketFrameException) {
      // the decoder and the aggregator refuse over-long frames and messages, and broken framing
      close(WebSocketCloseStatus.MESSAGE_TOO_BIG, "message too big or malformed frame");
    } else if (cause instanceof java.io.IOException) {
      ctx.close(); // a reset peer
    } else {
      LOG.log(Level.ERROR, "WebSocket session failed", cause);
      close(
          WebSocketCloseStatus.INTERNAL_SERVER_ERROR, "internal error; it is in the server's log");
    }
  }

  private void onMessage(String text) {
    long now = System.nanoTime();
    if (now - windowStart > 1_000_000_000L) {
      windowStart = now;
      messagesInWindow = 0;
    }
    if (++messagesInWindow > MAX_MESSAGES_PER_SECOND) {
      close(WebSocketCloseStatus.POLICY_VIOLATION, "too many messages: at most 100 a second");
      return;
    }
    JsonNode msg;
    try {
      msg = MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      reply(Map.of("error", "the message is not JSON"));
      return;
    }
    if (!(msg instanceof ObjectNode request)) {
      reply(Map.of("error", "a message is a JSON object, e.g. {\"action\":\"ping\"}"));
      return;
    }
    Map<String, Object> response = new LinkedHashMap<>();
    JsonNode action = request.path("action");
    switch (action.asText("")) {
      case "init" -> response.put("blocks", recentBlocks.apply(MempoolSpaceMessages.INIT_BLOCKS));
      case "want" -> want(request.path("data"), response);
      case "ping" -> response.put("pong", true);
      default -> {}
    }
    if (request.has("track-tx")) {
      trackTx(request.get("track-tx"), response);
    }
    if (request.has("track-txs")) {
      trackTxs(request.get("track-txs"), response);
    }
    if (!response.isEmpty()) {
      reply(response);
    }
  }

  private void want(JsonNode data, Map<String, Object> response) {
    boolean blocks = false;
    for (JsonNode d : data) {
      blocks |= "blocks".equals(d.asText());
    }
    if (blocks && !wantBlocks) {
      response.put("blocks", recentBlocks.apply(MempoolSpaceMessages.INIT_BLOCKS));
      hub.subscribeBlocks(this, OptionalLong.empty());
    } else if (!blocks && wantBlocks) {
      hub.unsubscribe(PushHub.BLOCKS, this);
    }
    wantBlocks = blocks;
  }

  private void trackTx(JsonNode value, Map<String, Object> response) {
    String text = value.asText("");
    if (text.equals("stop")) {
      trackTx.ifPresent(this::leave);
      trackTx = Optional.empty();
      return;
    }
    Optional<Hash32> txid = TxidParam.parse(text);
    if (txid.isEmpty()) {
      response.put("track-tx-error", "not a txid: 64 hex characters, or \"stop\"");
      return;
    }
    String topic = txid.get().displayHex();
    if (trackTx.equals(Optional.of(topic))) {
      return;
    }
    if (!trackTxs.contains(topic) && trackedCount() + 1 > limits.maxTracked()) {
      response.put("track-tx-error", tooMany());
      return;
    }
    trackTx.ifPresent(this::leave);
    trackTx = Optional.of(topic);
    if (!trackTxs.contains(topic)) {
      hub.subscribeTx(txid.get(), this, OptionalLong.empty());
    }
  }

  private void trackTxs(JsonNode value, Map<String, Object> response) {
    if (!value.isArray()) {
      response.put("track-txs-error", "track-txs takes an array of txids");
      return;
    }
    if (value.size() > limits.maxTracked()) {
      response.put("track-txs-error", tooMany());
      return;
    }
    List<Hash32> ids = new ArrayList<>();
    for (JsonNode v : value) {
      Optional<Hash32> txid = TxidParam.parse(v.asText(""));
      if (txid.isEmpty()) {
        response.put(
            "track-txs-error", "not a txid: " + MempoolSpaceMessages.excerpt(v.toString()));
        return; // nothing changes on bad input
      }
      ids.add(txid.get());
    }
    for (String old : new ArrayList<>(trackTxs)) {
      trackTxs.remove(old);
      leave(old);
    }
    pendingTracked.clear();
    for (Hash32 txid : ids) {
      String topic = txid.displayHex();
      if (trackTxs.add(topic) && !trackTx.equals(Optional.of(topic))) {
        hub.subscribeTx(txid, this, OptionalLong.empty());
      } else if (trackTx.equals(Optional.of(topic))) {
        pendingTracked.put(topic, Map.of("confirmed", false)); // state comes with track-tx's
      }
    }
    // Queued behind the first states the subscriptions just queued: all of them are in by then.
    channel.eventLoop().execute(this::flushTracked);
  }

  private void flushTracked() {
    if (!pendingTracked.isEmpty()) {
      reply(Map.of("tracked-txs", new LinkedHashMap<>(pendingTracked)));
      pendingTracked.clear();
    }
  }

  private int trackedCount() {
    return trackTxs.size() + (trackTx.isPresent() && !trackTxs.contains(trackTx.get()) ? 1 : 0);
  }

  private String tooMany() {
    return "too many txids requested, this connection supports tracking a maximum of "
        + limits.maxTracked()
        + " transactions";
  }

  /** Leaves {@code topic} unless the other kind of tracking still holds it. */
  private void leave(String topic) {
    if (!trackTxs.contains(topic) && !trackTx.equals(Optional.of(topic))) {
      hub.unsubscribe(topic, this);
    }
  }

  @Override
  public void deliver(PushEvent event) {
    channel.eventLoop().execute(() -> onEvent(event));
  }

  private void onEvent(PushEvent event) {
    if (!channel.isActive() || event.aboutFollower()) {
      return; // the dialect has no word for a lost node; its changes come as changes
    }
    Map<String, Object> message = new LinkedHashMap<>();
    if (event.topic().equals(PushHub.BLOCKS)) {
      if (wantBlocks && event.kind().equals("connected")) {
        Optional.ofNullable(event.data().get("blockHash"))
            .map(h -> Hash32.ofDisplayHex(h.toString()))
            .flatMap(blockJson)
            .ifPresent(b -> message.put("block", b));
      }
    } else {
      if (trackTx.equals(Optional.of(event.topic()))) {
        MempoolSpaceMessages.trackTx(event).ifPresent(m -> message.putAll(m));
        if (event.kind().equals("replaced")) {
          trackTx = Optional.empty(); // as mempool.space: a replaced tx is no longer tracked
          leave(event.topic());
        }
      }
      if (trackTxs.contains(event.topic())) {
        Map<String, Object> info = MempoolSpaceMessages.trackingInfo(event);
        if (event.live()) {
          message.put("tracked-txs", Map.of(event.topic(), info));
        } else {
          pendingTracked.put(event.topic(), info);
        }
      }
    }
    if (!message.isEmpty() && reply(message)) {
      hub.metrics().notified(event);
    }
  }

  private boolean reply(Map<String, Object> message) {
    try {
      return send(new TextWebSocketFrame(MAPPER.writeValueAsString(message)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a WebSocket message", e);
    }
  }

  /** Writes a frame, or closes a connection whose client has not read what it was sent. */
  private boolean send(WebSocketFrame frame) {
    if (dropped || !channel.isActive()) {
      frame.release();
      return false;
    }
    if (!channel.isWritable()) {
      frame.release();
      dropped = true; // events already queued for it find it dropped: counted once
      hub.metrics().slowConsumerClosed();
      closeSlow();
      return false;
    }
    channel.writeAndFlush(frame, channel.voidPromise());
    return true;
  }

  /**
   * Closes a connection that does not read: a 1008 close frame queued behind what it has not read
   * (a client that was only slow reads it and knows why), and the connection closed outright after
   * {@link #SLOW_CLOSE_GRACE_MILLIS} if that frame has not left by then (one that reads nothing).
   * The queue beyond the high-water mark holds that one frame only.
   */
  private void closeSlow() {
    close(WebSocketCloseStatus.POLICY_VIOLATION, "not reading: the connection's queue is full");
    channel
        .eventLoop()
        .schedule(() -> channel.close(), SLOW_CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void close(WebSocketCloseStatus status, String reason) {
    if (channel.isActive()) {
      channel
          .writeAndFlush(new CloseWebSocketFrame(status.code(), reason))
          .addListener(ChannelFutureListener.CLOSE);
    }
  }
}
