package io.bbfindex.app.follow;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.esplora.NodeRelay;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.node.RpcException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The esplora routes' view of the followed node: {@code getrawmempool} and, when the operator
 * allows it ({@code --esplora-relay}), {@code sendrawtransaction}.
 */
final class NodeRpcRelay implements NodeRelay {
  private final NodeRpc rpc;
  private final boolean relay;

  NodeRpcRelay(NodeRpc rpc, boolean relay) {
    this.rpc = Objects.requireNonNull(rpc, "rpc");
    this.relay = relay;
  }

  @Override
  public List<String> mempoolTxids() throws IOException {
    List<String> txids = new ArrayList<>();
    for (JsonNode t : rpc.call("getrawmempool")) {
      txids.add(t.asText());
    }
    return txids;
  }

  @Override
  public String sendRawTransaction(String hex) throws IOException {
    if (!relay) {
      throw new IllegalStateException("relaying is off (serve --esplora-relay)");
    }
    try {
      return rpc.call("sendrawtransaction", hex).asText();
    } catch (RpcException refused) { // the node's verdict on the transaction, for the client
      throw new IllegalArgumentException(refused.getMessage(), refused);
    }
  }

  @Override
  public boolean relayEnabled() {
    return relay;
  }
}
