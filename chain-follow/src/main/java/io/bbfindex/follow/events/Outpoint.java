package io.bbfindex.follow.events;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.Objects;

/** An input's previous output: the tx that created it and its index there. */
record Outpoint(Hash32 txid, int vout) {
  Outpoint {
    Objects.requireNonNull(txid, "txid");
  }
}
