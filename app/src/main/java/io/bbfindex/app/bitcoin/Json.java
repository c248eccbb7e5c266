package io.bbfindex.app.bitcoin;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainStatus;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.encoding.HashKeys;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * Writes the API's small, fixed-shape JSON objects straight into a {@link ByteBuf}.
 *
 * <p>WHY not Jackson here: a single lookup is the hot path (wrk measures it against {@code
 * /livez}), and its answer is a handful of fields whose values are hex hashes, integers and fixed
 * words, none of which needs escaping. Writing ASCII bytes directly costs no object mapping and no
 * intermediate {@code String}s. Bodies that carry free text (errors, {@code /v1/filters}) go
 * through Jackson so escaping is always right.
 */
final class Json {
  private static final byte[] TXID = ascii("{\"txid\":\"");
  private static final byte[] HASH = ascii("{\"hash\":\"");
  private static final byte[] ABSENT = ascii("\",\"present\":false}");
  private static final byte[] CLOSE_STRING = ascii("\"}");
  private static final byte[] PRESENT_STATUS = ascii("\",\"present\":true,\"status\":\"");
  private static final byte[] BLOCK_HASH = ascii("\",\"blockHash\":\"");
  private static final byte[] HEIGHT = ascii("\",\"height\":");
  private static final byte[] CONFIRMATIONS = ascii(",\"confirmations\":");
  private static final byte[] FILE = ascii(",\"file\":");
  private static final byte[] DATA_POS = ascii(",\"dataPos\":");
  private static final byte[] TX_OFFSET = ascii(",\"txOffset\":");
  private static final byte[] ON_ACTIVE_CHAIN = ascii(",\"onActiveChain\":");
  private static final byte[] N_TX = ascii(",\"nTx\":");
  private static final byte[] N_STATUS = ascii(",\"nStatus\":");
  private static final byte[] VERSION = ascii(",\"version\":");
  private static final byte[] PREV_HASH = ascii(",\"prevHash\":\"");
  private static final byte[] MERKLE_ROOT = ascii("\",\"merkleRoot\":\"");
  private static final byte[] TIME = ascii("\",\"time\":");
  private static final byte[] BITS = ascii(",\"bits\":\"");
  private static final byte[] NONCE = ascii("\",\"nonce\":");
  private static final byte[] TRUE = ascii("true");
  private static final byte[] FALSE = ascii("false");

  /**
   * An upper bound of one tx answer's bytes, for sizing buffers: fixed text + 2 hashes + numbers.
   */
  static final int MAX_TX_ANSWER_BYTES = 300;

  private Json() {}

  /**
   * Writes {@code {"txid":..,"present":false}} or the full present answer of the txid at {@code
   * keys[offset .. offset + 32)} (internal order).
   */
  static void writeTx(
      ByteBuf out, byte[] keys, int offset, @Nullable TxAnswer answer, byte[] scratch) {
    out.writeBytes(TXID);
    writeHash(out, keys, offset, scratch);
    if (answer == null) {
      out.writeBytes(ABSENT);
      return;
    }
    out.writeBytes(PRESENT_STATUS);
    writeAscii(out, answer.status().json());
    if (answer.status() == ChainStatus.MEMPOOL) {
      out.writeBytes(CLOSE_STRING);
      return;
    }
    out.writeBytes(BLOCK_HASH);
    writeHash(out, answer.blockHash(), 0, scratch);
    out.writeBytes(HEIGHT);
    writeLong(out, answer.height());
    out.writeBytes(CONFIRMATIONS);
    writeLong(out, answer.confirmations());
    if (!answer.hasLocation()) { // followed blocks of a node on another host
      out.writeByte('}');
      return;
    }
    out.writeBytes(FILE);
    writeLong(out, answer.file());
    out.writeBytes(DATA_POS);
    writeLong(out, answer.dataPos());
    out.writeBytes(TX_OFFSET);
    writeLong(out, answer.txOffset());
    out.writeByte('}');
  }

  /**
   * Writes {@code {"hash":..,"present":false}} or the full answer for a block hash (internal
   * order).
   */
  static void writeBlock(ByteBuf out, byte[] hash, @Nullable BlockAnswer b, byte[] scratch) {
    out.writeBytes(HASH);
    writeHash(out, hash, 0, scratch);
    if (b == null) {
      out.writeBytes(ABSENT);
      return;
    }
    out.writeBytes(PRESENT_STATUS);
    writeAscii(out, b.status().json());
    out.writeBytes(HEIGHT);
    writeLong(out, b.height());
    out.writeBytes(CONFIRMATIONS);
    writeLong(out, b.confirmations());
    out.writeBytes(ON_ACTIVE_CHAIN);
    out.writeBytes(b.onActiveChain() ? TRUE : FALSE);
    out.writeBytes(N_TX);
    writeLong(out, b.nTx());
    out.writeBytes(FILE);
    writeLong(out, b.file());
    out.writeBytes(DATA_POS);
    writeLong(out, b.dataPos());
    if (b.nStatus() != BlockAnswer.NO_STATUS) {
      out.writeBytes(N_STATUS);
      writeLong(out, b.nStatus());
    }
    out.writeBytes(VERSION);
    writeLong(out, b.version());
    out.writeBytes(PREV_HASH);
    writeHash(out, b.prevHash(), 0, scratch);
    out.writeBytes(MERKLE_ROOT);
    writeHash(out, b.merkleRoot(), 0, scratch);
    out.writeBytes(TIME);
    writeLong(out, b.time());
    // Core's RPC shows bits as 8 hex digits (e.g. "1d00ffff"); explorers copy that.
    out.writeBytes(BITS);
    writeAscii(out, HexFormat.of().toHexDigits((int) b.bits()));
    out.writeBytes(NONCE);
    writeLong(out, b.nonce());
    out.writeByte('}');
  }

  /** Writes the 64-char display hex of an internal-order key; {@code scratch} is >= 64 bytes. */
  private static void writeHash(ByteBuf out, byte[] key, int offset, byte[] scratch) {
    HashKeys.toDisplayHexAscii(key, offset, scratch, 0);
    out.writeBytes(scratch, 0, HashKeys.HEX_CHARS);
  }

  private static void writeAscii(ByteBuf out, String s) {
    out.writeCharSequence(s, StandardCharsets.US_ASCII);
  }

  /** Decimal digits without a temporary String. */
  static void writeLong(ByteBuf out, long v) {
    if (v < 0) {
      if (v == Long.MIN_VALUE) {
        writeAscii(out, Long.toString(v));
        return;
      }
      out.writeByte('-');
      v = -v;
    }
    if (v < 10) {
      out.writeByte('0' + (int) v);
      return;
    }
    int digits = 0;
    for (long t = v; t > 0; t /= 10) {
      digits++;
    }
    int end = out.writerIndex() + digits;
    out.ensureWritable(digits);
    for (int i = end - 1; i >= end - digits; i--) {
      out.setByte(i, '0' + (int) (v % 10));
      v /= 10;
    }
    out.writerIndex(end);
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
