package io.bbfindex.follow;

import io.bbfindex.ingest.encoding.Hash32;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A consistent picture of the follower for {@code GET /v1/status}.
 *
 * @param network the node's chain ({@code main}, {@code test}, {@code regtest}, ...), or {@code
 *     null} before first contact
 * @param nodeTipHash the node's best block when last asked, or {@code null}
 * @param nodeTipHeight -1 when unknown
 * @param servedTipHash the newest block answers reflect
 * @param snapshotTipHash the history snapshot's tip, the base of the tip layer
 * @param since when the follower entered {@code state}
 * @param notifications {@code zmq <endpoint>} or {@code polling}
 * @param lastError why the follower cannot follow now (the node refused the credentials, the
 *     connection was refused, a timeout, ...), or {@code null} while it follows
 */
public record FollowStatus(
    @Nullable String network,
    @Nullable Hash32 nodeTipHash,
    int nodeTipHeight,
    Hash32 servedTipHash,
    int servedTipHeight,
    Hash32 snapshotTipHash,
    int snapshotTipHeight,
    FollowState state,
    Instant since,
    int mempoolSize,
    String notifications,
    @Nullable String lastError) {}
