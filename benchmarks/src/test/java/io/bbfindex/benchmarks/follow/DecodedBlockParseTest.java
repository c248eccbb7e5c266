package io.bbfindex.benchmarks.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.follow.layer.DecodedBlock;
import io.bbfindex.ingest.encoding.Hash32;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.bitcoinj.base.VarInt;
import org.bitcoinj.core.Transaction;
import org.junit.jupiter.api.Test;

/**
 * The framing-only block parser against bitcoinj's full transaction parser (segwit blocks are
 * checked against the node's own txids in NodeInterfacesTest and the acceptance tests).
 */
class DecodedBlockParseTest {

  @Test
  void txidsAndOffsetsMatchBitcoinjsParse() {
    SyntheticBlocks gen = new SyntheticBlocks(3);
    byte[] prev = gen.bytes(32);
    byte[] raw = gen.block(prev, 300);
    DecodedBlock block = DecodedBlock.parse(raw);
    assertEquals(Hash32.ofInternal(prev), block.prevHash());
    assertEquals(Hash32.ofInternal(SyntheticBlocks.hash(raw)), block.hash());
    ByteBuffer buf = ByteBuffer.wrap(raw).position(80);
    assertEquals(300, VarInt.read(buf).longValue());
    for (int i = 0; i < 300; i++) {
      assertEquals(buf.position() - 80, block.txOffsets()[i]);
      Transaction tx = Transaction.read(buf);
      assertTrue(tx.hasWitnesses(), "the synthetic payments are segwit spends");
      assertEquals(tx.getTxId().toString(), block.txids()[i].displayHex());
    }
  }

  @Test
  void refusesTruncatedBlocksAndTrailingBytes() {
    byte[] raw = new SyntheticBlocks(4).block(new byte[32], 3);
    assertThrows(
        IllegalArgumentException.class,
        () -> DecodedBlock.parse(Arrays.copyOf(raw, raw.length - 1)));
    assertThrows(
        IllegalArgumentException.class,
        () -> DecodedBlock.parse(Arrays.copyOf(raw, raw.length + 1)));
    assertThrows(IllegalArgumentException.class, () -> DecodedBlock.parse(Arrays.copyOf(raw, 80)));
  }
}
