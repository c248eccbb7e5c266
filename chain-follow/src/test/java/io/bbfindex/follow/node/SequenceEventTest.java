package io.bbfindex.follow.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class SequenceEventTest {
  private static final String HASH =
      "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";

  @Test
  void decodesABlockConnectedMessageInDisplayOrder() {
    byte[] body = HexFormat.of().parseHex(HASH + "43"); // 'C'
    SequenceEvent e = SequenceEvent.decode(body, new byte[] {5, 1, 0, 0});
    assertEquals(SequenceEvent.Kind.BLOCK_CONNECTED, e.kind());
    assertEquals(HASH, e.hash().displayHex());
    assertEquals(-1, e.mempoolSequence());
    assertEquals(261, e.counter());
  }

  @Test
  void decodesTheMempoolSequenceOfAnAddedTx() {
    byte[] body = HexFormat.of().parseHex(HASH + "41" + "0201000000000000"); // 'A', seq 258 LE
    SequenceEvent e =
        SequenceEvent.decode(body, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
    assertEquals(SequenceEvent.Kind.TX_ADDED, e.kind());
    assertEquals(258, e.mempoolSequence());
    assertEquals(0xffff_ffffL, e.counter());
  }

  @Test
  void refusesABlockEventWithASequenceAndUnknownLetters() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            SequenceEvent.decode(
                HexFormat.of().parseHex(HASH + "43" + "0000000000000000"), new byte[4]));
    assertThrows(
        IllegalArgumentException.class,
        () -> SequenceEvent.decode(HexFormat.of().parseHex(HASH + "58"), new byte[4]));
    assertThrows(
        IllegalArgumentException.class,
        () -> SequenceEvent.decode(HexFormat.of().parseHex(HASH + "43"), new byte[3]));
  }

  @Test
  void gapDetectorFollowsTheCounterAcrossItsWrapAndFlagsJumpsAndRestarts() {
    SequenceGapDetector d = new SequenceGapDetector();
    assertFalse(d.gapBefore(0xffff_fffeL), "the first message is never a gap");
    assertFalse(d.gapBefore(0xffff_ffffL));
    assertFalse(d.gapBefore(0), "the 4-byte counter wraps to 0");
    assertFalse(d.gapBefore(1));
    assertTrue(d.gapBefore(3), "a dropped message");
    assertFalse(d.gapBefore(4));
    assertTrue(d.gapBefore(0), "a restarted publisher counts from 0 again");
    d.reset();
    assertFalse(d.gapBefore(17));
  }
}
