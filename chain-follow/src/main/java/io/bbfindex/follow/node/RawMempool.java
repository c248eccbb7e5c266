package io.bbfindex.follow.node;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.util.Arrays;

/**
 * A {@code getrawmempool false true} answer, parsed straight from the JSON-RPC body into flat
 * internal-order txids: no tree, no {@code String} and no object per txid (the node's mempool can
 * hold 300,000 txs; a resync must leave the garbage collector, which pauses the lookups too,
 * nothing to do). One instance is reused across resyncs; its array only grows.
 *
 * <p>Layout: txid {@code i} is {@code txids()[32 i .. 32 i + 32)}, Bitcoin's internal byte order
 * (the reverse of the hex the node prints).
 */
public final class RawMempool {
  private static final JsonFactory JSON = new JsonFactory();

  private byte[] txids = new byte[0];
  private int count;
  private long sequence = -1;

  /** The txids of the last answer parsed, {@link #count()} of them; see the class comment. */
  public byte[] txids() {
    return txids;
  }

  public int count() {
    return count;
  }

  /** The answer's {@code mempool_sequence}, or -1 if it had none. */
  public long sequence() {
    return sequence;
  }

  /**
   * Parses a JSON-RPC answer body ({@code {"result":{"txids":[...],"mempool_sequence":N},...}}).
   *
   * @return {@code false} if the body has no {@code result.txids} array or a non-null {@code error}
   *     (an error answer: the caller reports it as any call's error)
   * @throws IOException if the body is not JSON or a txid is not 64 hex digits
   */
  public boolean parse(byte[] body) throws IOException {
    count = 0;
    sequence = -1;
    boolean haveTxids = false;
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("result".equals(name) && value == JsonToken.START_OBJECT) {
          haveTxids = parseResult(p);
        } else if ("error".equals(name) && value != JsonToken.VALUE_NULL) {
          return false;
        } else {
          p.skipChildren();
        }
      }
    }
    return haveTxids;
  }

  private boolean parseResult(JsonParser p) throws IOException {
    boolean haveTxids = false;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if ("txids".equals(name) && value == JsonToken.START_ARRAY) {
        haveTxids = true;
        while (p.nextToken() == JsonToken.VALUE_STRING) {
          // The parser's own character buffer: no String per txid.
          addDisplayHex(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        }
        if (p.currentToken() != JsonToken.END_ARRAY) {
          throw new IOException("getrawmempool: a txid that is not a string: " + p.currentToken());
        }
      } else if ("mempool_sequence".equals(name) && value == JsonToken.VALUE_NUMBER_INT) {
        sequence = p.getLongValue();
      } else {
        p.skipChildren();
      }
    }
    return haveTxids;
  }

  /** Appends the txid the node prints as {@code hex} (64 digits, byte-reversed). */
  private void addDisplayHex(char[] chars, int offset, int length) throws IOException {
    if (length != 2 * Hash32.BYTES) {
      throw new IOException("getrawmempool: a txid of " + length + " characters, not 64");
    }
    if ((count + 1) * Hash32.BYTES > txids.length) {
      txids = Arrays.copyOf(txids, Math.max(1024 * Hash32.BYTES, txids.length * 2));
    }
    int last = count * Hash32.BYTES + Hash32.BYTES - 1;
    for (int b = 0; b < Hash32.BYTES; b++) {
      int hi = Character.digit(chars[offset + 2 * b], 16);
      int lo = Character.digit(chars[offset + 2 * b + 1], 16);
      if (hi < 0 || lo < 0) {
        throw new IOException(
            "getrawmempool: not a hex txid: " + new String(chars, offset, length));
      }
      txids[last - b] = (byte) (hi << 4 | lo);
    }
    count++;
  }
}
