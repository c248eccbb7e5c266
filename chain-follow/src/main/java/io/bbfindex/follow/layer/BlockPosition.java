package io.bbfindex.follow.layer;

/** Where the node stored a block: {@code blk<file>.dat}, the offset of its 80-byte header. */
public record BlockPosition(int file, long dataPos) {}
