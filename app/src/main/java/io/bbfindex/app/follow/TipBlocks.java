package io.bbfindex.app.follow;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.follow.Follower;
import io.bbfindex.follow.layer.BlockPosition;
import io.bbfindex.follow.layer.DecodedBlock;
import io.bbfindex.follow.layer.TipBlock;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/** Block answers of {@code serve --follow} for blocks the follower holds, from their headers. */
final class TipBlocks {
  private TipBlocks() {}

  /**
   * The answer for a followed block: header fields from its 80 bytes, no {@code nStatus} (its block
   * index entry is not on disk yet), the location when the node's files are readable here.
   */
  static BlockAnswer answer(TipBlock t) {
    DecodedBlock b = t.block();
    ByteBuffer h = ByteBuffer.wrap(b.header()).order(ByteOrder.LITTLE_ENDIAN);
    BlockPosition at = t.location();
    return new BlockAnswer(
        b.hash().internal(),
        t.height(),
        BlockAnswer.NO_STATUS,
        b.txids().length,
        at == null ? -1 : at.file(),
        at == null ? 0 : at.dataPos(),
        h.getInt(0),
        Arrays.copyOfRange(b.header(), 4, 36),
        Arrays.copyOfRange(b.header(), 36, 68),
        Integer.toUnsignedLong(h.getInt(68)),
        Integer.toUnsignedLong(h.getInt(72)),
        Integer.toUnsignedLong(h.getInt(76)),
        t.onActiveChain(),
        t.confirmations());
  }

  /** A history block's answer with confirmations from the served tip, not the snapshot's. */
  static BlockAnswer onServedTip(BlockAnswer a, Follower follower) {
    if (!a.onActiveChain()) {
      return a;
    }
    return new BlockAnswer(
        a.hash(),
        a.height(),
        a.nStatus(),
        a.nTx(),
        a.file(),
        a.dataPos(),
        a.version(),
        a.prevHash(),
        a.merkleRoot(),
        a.time(),
        a.bits(),
        a.nonce(),
        true,
        follower.servedTipHeight() - a.height() + 1);
  }
}
