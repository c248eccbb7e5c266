package io.bbfindex.follow.node;

import io.bbfindex.ingest.encoding.Hash32;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One message of the node's ZMQ {@code sequence} topic: a block connected ({@code C}) or
 * disconnected ({@code D}), a transaction added to ({@code A}) or removed from ({@code R}) the
 * mempool (removal for block inclusion sends no {@code R}).
 *
 * @param hash the block hash or txid
 * @param mempoolSequence the node's mempool sequence for {@code A}/{@code R}, -1 for blocks
 * @param counter the publisher's per-topic message counter (4 bytes LE, wraps), for gap detection
 */
public record SequenceEvent(Kind kind, Hash32 hash, long mempoolSequence, long counter) {

  public enum Kind {
    BLOCK_CONNECTED('C'),
    BLOCK_DISCONNECTED('D'),
    TX_ADDED('A'),
    TX_REMOVED('R');

    private final char letter;

    Kind(char letter) {
      this.letter = letter;
    }

    static Kind of(int letter) {
      for (Kind k : values()) {
        if (k.letter == letter) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown sequence event letter: " + (char) letter);
    }
  }

  /**
   * Decodes the body and counter frames.
   *
   * @throws IllegalArgumentException if a frame has the wrong length or an unknown letter
   */
  public static SequenceEvent decode(byte[] body, byte[] counterFrame) {
    if (counterFrame.length != 4) {
      throw new IllegalArgumentException(
          "sequence counter frame must be 4 bytes: " + counterFrame.length);
    }
    if (body.length != 33 && body.length != 41) {
      throw new IllegalArgumentException("sequence body must be 33 or 41 bytes: " + body.length);
    }
    Kind kind = Kind.of(body[32]);
    boolean carriesSequence = kind == Kind.TX_ADDED || kind == Kind.TX_REMOVED;
    if (carriesSequence != (body.length == 41)) {
      throw new IllegalArgumentException(kind + " with a body of " + body.length + " bytes");
    }
    byte[] displayOrder = java.util.Arrays.copyOf(body, 32);
    byte[] internal = new byte[32];
    for (int i = 0; i < 32; i++) {
      internal[i] = displayOrder[31 - i];
    }
    long mempoolSequence =
        carriesSequence
            ? ByteBuffer.wrap(body, 33, 8).order(ByteOrder.LITTLE_ENDIAN).getLong()
            : -1;
    long counter =
        ByteBuffer.wrap(counterFrame).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xffff_ffffL;
    return new SequenceEvent(kind, Hash32.ofInternal(internal), mempoolSequence, counter);
  }
}
