package io.bbfindex.follow;

import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.ingest.encoding.Hash32;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How to follow a node.
 *
 * @param rpc the node's JSON-RPC (and REST)
 * @param zmq {@code null}: discover the {@code sequence} endpoint with {@code getzmqnotifications};
 *     {@link #NO_ZMQ}: poll; otherwise a {@code tcp://host:port} endpoint
 * @param blocksDir the node's {@code blocks} directory when readable here (locations), else {@code
 *     null}
 * @param baseHash the history snapshot's tip: the tip layer holds the blocks after it
 * @param pollInterval how often to ask the node when no ZMQ is used (at most 1 s), and the health
 *     check period with ZMQ
 */
public record FollowConfig(
    NodeRpc rpc,
    @Nullable String zmq,
    Path blocksDir,
    Hash32 baseHash,
    int baseHeight,
    Duration pollInterval) {
  /** {@link #zmq} value that turns ZMQ off: poll only. */
  public static final String NO_ZMQ = "none";

  public FollowConfig {
    Objects.requireNonNull(rpc, "rpc");
    Objects.requireNonNull(baseHash, "baseHash");
    if (pollInterval.isNegative()
        || pollInterval.isZero()
        || pollInterval.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("pollInterval must be in (0, 1 s]: " + pollInterval);
    }
  }
}
