package io.bbfindex.app.push;

import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.encoding.Hash32;
import io.bbfindex.ingest.encoding.HashKeys;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A txid's state as the served data says it now, in the kinds and fields of its events: the first
 * event of a subscription, and the replacement for events a reconnecting client can no longer get.
 */
final class CurrentState {
  private final ChainBackend backend;

  CurrentState(ChainBackend backend) {
    this.backend = backend;
  }

  /** The kind ({@code confirmed}, {@code stale}, {@code mempool}, {@code unknown}) and fields. */
  Snapshot of(Hash32 txid) {
    Optional<TxAnswer> answer = backend.lookupTx(txid.internal());
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("txid", txid.displayHex());
    if (answer.isEmpty()) {
      return new Snapshot("unknown", data);
    }
    TxAnswer a = answer.get();
    return switch (a.status()) {
      case MEMPOOL -> new Snapshot("mempool", data);
      case CONFIRMED -> {
        data.put("height", a.height());
        data.put("blockHash", HashKeys.toDisplayHex(a.blockHash()));
        data.put("confirmations", a.confirmations());
        yield new Snapshot("confirmed", data);
      }
      case STALE -> {
        data.put("blockHash", HashKeys.toDisplayHex(a.blockHash()));
        yield new Snapshot("stale", data);
      }
    };
  }

  record Snapshot(String kind, Map<String, Object> data) {}
}
