package io.bbfindex.app.follow;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.encoding.Hash32;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The block a snapshot's history is complete up to, where the follower's tip layer starts: the
 * block index's tip, or the txindex's committed block when that is lower (Core builds the txindex
 * in the background, so on a running node it can trail the block index: the txs of the blocks in
 * between are in neither the snapshot's txindex nor, otherwise, the tip layer). When the txindex
 * runs ahead instead, its extra rows point past the snapshot's blocks and the tip layer answers
 * those txs. A txindex that never committed (a node that has not written it yet) holds nothing
 * certain: the tip layer then starts at genesis and takes every block from the node.
 *
 * <p>With the own txid index ({@code own}) the txindex plays no part: the own index is brought up
 * to the snapshot's block index, so the history is complete to the block index's tip.
 */
record SnapshotBase(Hash32 hash, int height) {

  static SnapshotBase of(NodeIndex index) {
    return of(index, false);
  }

  static SnapshotBase of(NodeIndex index, boolean own) {
    if (own) {
      return new SnapshotBase(Hash32.ofInternal(index.tipHash()), index.tipHeight());
    }
    OptionalInt txHeight = index.txindexTipHeight();
    Optional<byte[]> txHash = index.txindexTipHash();
    if (txHash.isEmpty()) {
      return new SnapshotBase(Hash32.ofInternal(index.activeBlockAt(0).orElseThrow().hash()), 0);
    }
    if (txHeight.isPresent() && txHeight.getAsInt() < index.tipHeight()) {
      return new SnapshotBase(Hash32.ofInternal(txHash.get()), txHeight.getAsInt());
    }
    return new SnapshotBase(Hash32.ofInternal(index.tipHash()), index.tipHeight());
  }
}
