package io.bbfindex.ingest.encoding;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.bitcoinj.base.VarInt;
import org.jspecify.annotations.Nullable;

/**
 * A bounded reader over {@code buf[start .. limit)} for one record. Every read checks the bound
 * first and throws a {@link CorruptRecordException} naming the record and the field; nothing is
 * allocated from a length before the length is checked against the bytes that remain.
 *
 * <p>Reusable: {@link #reset} points it at the next record without allocating, which the txindex
 * scan relies on (millions of records per second, {@code ./bbf-index bench ingest}). The record's
 * description (kind + key) is only formatted when an exception is built.
 */
public final class ByteCursor {

  /** Bitcoin Core's MAX_SIZE: the largest CompactSize a reader accepts (serialize.h). */
  public static final long MAX_COMPACT_SIZE = 0x0200_0000L;

  private final String recordKind;
  private byte @Nullable [] key;
  private byte[] buf = new byte[0];
  private int start;
  private int pos;
  private int limit;

  /**
   * @param recordKind what is being decoded, e.g. {@code "'b' block index record"}
   * @param key the LevelDB key (or other identity) shown in messages as hex; may be null
   */
  public ByteCursor(String recordKind, byte @Nullable [] key) {
    this.recordKind = recordKind;
    this.key = key;
  }

  /** Points the cursor at {@code buf[offset .. offset + length)}. */
  public ByteCursor reset(byte[] buf, int offset, int length) {
    if (offset < 0 || length < 0 || offset > buf.length - length) {
      throw new IndexOutOfBoundsException(
          "range [" + offset + ", " + offset + "+" + length + ") outside array of " + buf.length);
    }
    this.buf = buf;
    this.start = offset;
    this.pos = offset;
    this.limit = offset + length;
    return this;
  }

  /** Changes the key shown in messages (for a reused cursor). */
  public ByteCursor key(byte[] key) {
    this.key = key;
    return this;
  }

  /** Bytes left to read. */
  public int remaining() {
    return limit - pos;
  }

  /** Position relative to the record's first byte. */
  public int position() {
    return pos - start;
  }

  public int readUnsignedByte(String field) throws CorruptRecordException {
    need(1, field);
    return buf[pos++] & 0xFF;
  }

  /** Little-endian int32, as Core's {@code ser_readdata32}. */
  public int readInt32LE(String field) throws CorruptRecordException {
    need(4, field);
    int v = LittleEndian.int32(buf, pos);
    pos += 4;
    return v;
  }

  /** Little-endian uint32 into a non-negative long. */
  long readUint32LE(String field) throws CorruptRecordException {
    return readInt32LE(field) & 0xFFFF_FFFFL;
  }

  /** Copies the next {@code n} bytes; {@code n} is checked against what remains first. */
  public byte[] readBytes(int n, String field) throws CorruptRecordException {
    if (n < 0) {
      throw corrupt(field, "negative length " + n);
    }
    need(n, field);
    byte[] out = new byte[n];
    System.arraycopy(buf, pos, out, 0, n);
    pos += n;
    return out;
  }

  /** Copies the next {@code n} bytes into {@code dst[dstOffset ..]}. */
  void readInto(byte[] dst, int dstOffset, int n, String field) throws CorruptRecordException {
    need(n, field);
    System.arraycopy(buf, pos, dst, dstOffset, n);
    pos += n;
  }

  /** Core's VARINT bounded by {@code max} (see {@link CoreVarInt}). */
  public long readVarInt(long max, String field) throws CorruptRecordException {
    return CoreVarInt.read(this, max, field);
  }

  /** A VARINT of a C++ {@code int} field (NONNEGATIVE_SIGNED), as a Java int. */
  public int readVarInt32(String field) throws CorruptRecordException {
    return (int) CoreVarInt.read(this, CoreVarInt.MAX_INT32, field);
  }

  /** A VARINT of a C++ {@code uint32_t} field, as a non-negative long. */
  public long readVarUint32(String field) throws CorruptRecordException {
    return CoreVarInt.read(this, CoreVarInt.MAX_UINT32, field);
  }

  /**
   * A CompactSize (decoded by bitcoinj's {@link VarInt}), refused when non-canonical or above
   * {@code max} (at most Core's MAX_SIZE), as Core's ReadCompactSize does.
   */
  public long readCompactSize(long max, String field) throws CorruptRecordException {
    ByteBuffer view = ByteBuffer.wrap(buf, pos, limit - pos);
    VarInt v;
    try {
      v = VarInt.read(view);
    } catch (BufferUnderflowException e) {
      CorruptRecordException truncated = corrupt(field, "truncated CompactSize");
      truncated.initCause(e);
      throw truncated;
    }
    long n = v.longValue();
    if (v.getOriginalSizeInBytes() != VarInt.sizeOf(n)) {
      throw corrupt(field, "non-canonical CompactSize " + Long.toUnsignedString(n));
    }
    if (Long.compareUnsigned(n, Math.min(max, MAX_COMPACT_SIZE)) > 0) {
      throw corrupt(
          field,
          "CompactSize "
              + Long.toUnsignedString(n)
              + " exceeds "
              + Math.min(max, MAX_COMPACT_SIZE));
    }
    pos += v.getOriginalSizeInBytes();
    return n;
  }

  /** Fails unless every byte of the record was consumed (trailing garbage is corruption too). */
  public void expectEnd() throws CorruptRecordException {
    if (pos != limit) {
      throw corrupt("end of record", (limit - pos) + " unexpected trailing bytes");
    }
  }

  private void need(int n, String field) throws CorruptRecordException {
    if (n > limit - pos) {
      throw corrupt(field, "truncated: needs " + n + " bytes, " + (limit - pos) + " left");
    }
  }

  /** Builds (does not throw) the exception for {@code field}, naming the record and offset. */
  public CorruptRecordException corrupt(String field, String problem) {
    StringBuilder sb = new StringBuilder(recordKind);
    if (key != null) {
      sb.append(" (key ").append(HexFormat.of().formatHex(key)).append(')');
    }
    sb.append(": field ")
        .append(field)
        .append(" at byte ")
        .append(pos - start)
        .append(" of ")
        .append(limit - start)
        .append(": ")
        .append(problem);
    return new CorruptRecordException(sb.toString());
  }
}
