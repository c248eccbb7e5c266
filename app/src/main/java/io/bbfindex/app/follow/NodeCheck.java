package io.bbfindex.app.follow;

import io.bbfindex.follow.node.NodeAccess;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.node.NodeUnreachableException;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.encoding.HashKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The first contact of {@code serve --follow} with its node, before anything is served: is the node
 * there, and is it the node whose data directory was given? A node that cannot be reached is said
 * loudly (address, where the address came from, and why), not found out later from answers that
 * lack its blocks; a node of another network or another genesis is refused.
 */
final class NodeCheck {
  private NodeCheck() {}

  /**
   * @return the node's genesis hash (display hex), or empty when it cannot be reached (said on
   *     {@code log})
   * @throws IllegalArgumentException if the node runs another network than {@code chain}
   */
  static Optional<String> contact(NodeRpc rpc, NodeAccess access, String chain, PrintStream log)
      throws IOException {
    try {
      String nodeChain = rpc.call("getblockchaininfo").path("chain").asText();
      if (!nodeChain.equals(chain)) {
        throw new IllegalArgumentException(
            "the node at "
                + rpc.endpoint()
                + " (from "
                + access.from()
                + ") runs "
                + nodeChain
                + ", but the data directory holds "
                + chain
                + " data: --rpc or --datadir names another node");
      }
      return Optional.of(rpc.call("getblockhash", 0).asText());
    } catch (NodeUnreachableException e) {
      log.println(
          "bbf-index: WARNING: cannot reach the node's RPC at "
              + rpc.endpoint()
              + " (from "
              + access.from()
              + "): "
              + e.getMessage()
              + ". Serving the snapshot and trying again every second; blocks and mempool"
              + " transactions after it are not answered until the node is reached. Check"
              + " --rpc, rpcport/rpcconnect in bitcoin.conf, and the credentials.");
      return Optional.empty();
    }
  }

  /**
   * Refuses a node whose genesis block is not the one of the data directory (an unflushed block
   * index holds nothing else to compare with).
   */
  static void sameGenesis(NodeIndex index, Optional<String> nodeGenesis, URI rpc, Path datadir) {
    String ours = HashKeys.toDisplayHex(index.activeBlockAt(0).orElseThrow().hash());
    if (nodeGenesis.isPresent() && !nodeGenesis.get().equals(ours)) {
      throw new IllegalArgumentException(
          "the node at "
              + rpc
              + " has genesis block "
              + nodeGenesis.get()
              + ", but "
              + datadir
              + " holds "
              + ours
              + ": --rpc or --datadir names another node");
    }
  }
}
