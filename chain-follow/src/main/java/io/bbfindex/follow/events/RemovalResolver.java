package io.bbfindex.follow.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.node.RpcException;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Asks the node why a tx left its mempool, from the inputs kept while it was there: a mempool tx
 * spending one of them replaced it ({@code gettxspendingprevout}, Core 24 and later: exact, also
 * for a full-RBF replacement that never signalled); an input spent in the chain means a block
 * conflicted it; otherwise the node dropped it.
 */
final class RemovalResolver {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final NodeRpc rpc;

  RemovalResolver(NodeRpc rpc) {
    this.rpc = rpc;
  }

  /** The inputs of a tx in the node's mempool; empty if the node does not hold it there. */
  Optional<List<Outpoint>> inputsOf(Hash32 txid) throws IOException {
    JsonNode tx;
    try {
      tx = rpc.call("getrawtransaction", txid.displayHex(), 1);
    } catch (RpcException e) {
      if (e.code() == RpcException.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
    List<Outpoint> inputs = new ArrayList<>();
    for (JsonNode in : tx.path("vin")) {
      if (in.has("txid")) { // a coinbase has none
        inputs.add(
            new Outpoint(Hash32.ofDisplayHex(in.get("txid").asText()), in.get("vout").asInt()));
      }
    }
    return Optional.of(inputs);
  }

  /** Why {@code txid}, whose inputs were {@code inputs}, left the mempool. */
  Removal resolve(Hash32 txid, List<Outpoint> inputs) throws IOException {
    if (inputs.isEmpty()) {
      return new Removal.Unresolved();
    }
    ArrayNode outpoints = MAPPER.createArrayNode();
    for (Outpoint o : inputs) {
      outpoints.addObject().put("txid", o.txid().displayHex()).put("vout", o.vout());
    }
    try {
      for (JsonNode spent : rpc.call("gettxspendingprevout", outpoints)) {
        JsonNode by = spent.get("spendingtxid");
        if (by != null && !by.asText().equals(txid.displayHex())) {
          return new Removal.Replaced(Hash32.ofDisplayHex(by.asText()));
        }
      }
    } catch (RpcException e) {
      if (e.code() != METHOD_NOT_FOUND) {
        throw e;
      }
      // a node older than Core 24: which tx replaced it cannot be told exactly
    }
    // An input no longer unspent in the chain: a block spent it (or its unconfirmed parent left
    // the mempool too, which the node does not tell apart afterwards).
    for (Outpoint o : inputs) {
      if (rpc.call("gettxout", o.txid().displayHex(), o.vout(), false).isNull()) {
        return new Removal.Conflict();
      }
    }
    return new Removal.Evicted();
  }

  /** JSON-RPC's "method not found". */
  private static final int METHOD_NOT_FOUND = -32601;
}
