package io.bbfindex.ingest.encoding;

import static io.bbfindex.filters.Arguments.requireArgument;

/**
 * Bitcoin Core's VARINT ({@code src/serialize.h}): the MSB base-128 encoding used inside LevelDB
 * values (block index, txindex), not the CompactSize of the wire protocol.
 *
 * <p>Digits are 7 bits, most significant first; the high bit of a byte says another digit follows.
 * To make the encoding one-to-one, one is subtracted from every digit but the last when writing and
 * added back when reading, so {@code 128} is {@code 80 00}, not {@code 81 00}.
 *
 * <p>Core has one algorithm for unsigned and "non-negative signed" fields; only the C++ type (and
 * so the overflow bound) differs. Callers pass that bound: {@link #MAX_INT32} for {@code int}
 * fields (nHeight, nFile, version), {@link #MAX_UINT32} for {@code uint32_t} ones (nStatus, nTx,
 * nPos, nTxOffset).
 */
public final class CoreVarInt {

  /** Largest value of a C++ {@code int} field ({@code VarIntMode::NONNEGATIVE_SIGNED}). */
  static final long MAX_INT32 = Integer.MAX_VALUE;

  /** Largest value of a C++ {@code uint32_t} field. */
  public static final long MAX_UINT32 = 0xFFFF_FFFFL;

  /**
   * Largest value decodable into a Java {@code long} ({@code uint64_t} fields above it are
   * refused).
   */
  public static final long MAX_INT64 = Long.MAX_VALUE;

  /** Longest encoding of a value up to {@link #MAX_INT64}: ceil(63 / 7) + 1 digits. */
  public static final int MAX_BYTES = 10;

  private CoreVarInt() {}

  /**
   * Decodes one VARINT from {@code cursor} (the algorithm of Core's ReadVarInt).
   *
   * @param max the largest value the C++ field can hold; larger (or overflowing) values are refused
   *     before any bit is shifted out, as Core does ("ReadVarInt(): size too large")
   * @param field the field's name, for the exception message
   * @throws CorruptRecordException if the bytes end before the last digit or the value exceeds
   *     {@code max}
   */
  public static long read(ByteCursor cursor, long max, String field) throws CorruptRecordException {
    long n = 0;
    while (true) {
      int b = cursor.readUnsignedByte(field);
      // Same place and test as Core: refuse before the shift would drop high bits.
      if (n > (max >>> 7)) {
        throw cursor.corrupt(field, "VARINT too large (ReadVarInt(): size too large)");
      }
      n = (n << 7) | (b & 0x7F);
      if ((b & 0x80) == 0) {
        if (n > max) {
          throw cursor.corrupt(field, "VARINT " + n + " exceeds the field's maximum " + max);
        }
        return n;
      }
      if (n == max) {
        throw cursor.corrupt(field, "VARINT too large (ReadVarInt(): size too large)");
      }
      n++;
    }
  }

  /** Decodes {@code bytes}, which must hold exactly one VARINT no larger than {@code max}. */
  public static long decode(byte[] bytes, long max) throws CorruptRecordException {
    ByteCursor c = new ByteCursor("VARINT", null).reset(bytes, 0, bytes.length);
    long v = read(c, max, "value");
    c.expectEnd();
    return v;
  }

  /**
   * Encodes {@code n} as Core's WriteVarInt does.
   *
   * @throws IllegalArgumentException if {@code n} is negative (Core never writes negatives here)
   */
  public static byte[] encode(long n) {
    requireArgument(n >= 0, "VARINT value must be non-negative", n);
    byte[] tmp = new byte[MAX_BYTES];
    int len = 0;
    while (true) {
      tmp[len] = (byte) ((n & 0x7F) | (len != 0 ? 0x80 : 0x00));
      if (n <= 0x7F) {
        break;
      }
      n = (n >>> 7) - 1;
      len++;
    }
    byte[] out = new byte[len + 1];
    for (int i = 0; i <= len; i++) {
      out[i] = tmp[len - i];
    }
    return out;
  }

  /** Bytes {@link #encode} produces for {@code n}. */
  static int encodedLength(long n) {
    return encode(n).length;
  }
}
