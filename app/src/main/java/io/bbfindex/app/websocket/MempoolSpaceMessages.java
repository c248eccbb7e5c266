package io.bbfindex.app.websocket;

import io.bbfindex.app.push.PushEvent;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The shapes of mempool.space's WebSocket messages for a tracked tx (its backend's {@code
 * websocket-handler.ts}: {@code txConfirmed} is the txid, {@code txReplaced} is {@code {txid:
 * replacement}}, a {@code tracked-txs} entry is {@code {confirmed, replacedBy?}}), and this
 * server's extensions for what that dialect cannot say: {@code txUnconfirmed} (a reorg took its
 * block) and {@code txRemoved} (left the mempool without a replacement).
 */
final class MempoolSpaceMessages {
  /** Blocks sent for {@code init} and {@code want blocks}: mempool.space sends its last 8. */
  static final int INIT_BLOCKS = 8;

  private MempoolSpaceMessages() {}

  /** The {@code track-tx} message for {@code event}, if the dialect (or an extension) has one. */
  static Optional<Map<String, Object>> trackTx(PushEvent event) {
    String txid = event.topic();
    return switch (event.kind()) {
      case "confirmed" -> Optional.of(Map.of("txConfirmed", txid));
      case "replaced" ->
          Optional.of(Map.of("txReplaced", Map.of("txid", event.data().getOrDefault("by", ""))));
      case "unconfirmed" -> Optional.of(Map.of("txUnconfirmed", txid));
      case "removed" ->
          Optional.of(
              Map.of(
                  "txRemoved",
                  Map.of("txid", txid, "reason", event.data().getOrDefault("reason", "unknown"))));
      default -> Optional.empty(); // mempool, unknown, stale: nothing the dialect reports
    };
  }

  /** A {@code tracked-txs} entry: {@code confirmed}, and {@code replacedBy} or {@code removed}. */
  static Map<String, Object> trackingInfo(PushEvent event) {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("confirmed", event.kind().equals("confirmed"));
    switch (event.kind()) {
      case "replaced" -> info.put("replacedBy", event.data().getOrDefault("by", ""));
      case "removed" -> info.put("removed", event.data().getOrDefault("reason", "unknown"));
      case "unconfirmed" -> info.put("unconfirmed", true);
      default -> {}
    }
    return info;
  }

  /** At most 80 characters of a client's input, for an error message. */
  static String excerpt(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "...";
  }
}
