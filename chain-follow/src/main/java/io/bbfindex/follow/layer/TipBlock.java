package io.bbfindex.follow.layer;

import org.jspecify.annotations.Nullable;

/**
 * A block the tip layer knows: connected after the snapshot, or disconnected by a reorg since.
 *
 * @param location where the node stored it, or {@code null} when its files are not readable here
 * @param confirmations served tip height - height + 1 on the active chain, -1 off it
 */
public record TipBlock(
    DecodedBlock block,
    int height,
    @Nullable BlockPosition location,
    boolean onActiveChain,
    int confirmations) {}
