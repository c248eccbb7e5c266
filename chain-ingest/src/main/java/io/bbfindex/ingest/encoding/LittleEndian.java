package io.bbfindex.ingest.encoding;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Little-endian 32- and 64-bit reads out of byte arrays (block header fields, blk-file framing,
 * record fields), through the JDK's byte-array view: no buffer is wrapped and nothing is allocated.
 */
public final class LittleEndian {

  private static final VarHandle INT32 =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static final VarHandle INT64 =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private LittleEndian() {}

  /**
   * The int32 at {@code b[offset .. offset + 4)}.
   *
   * @throws IndexOutOfBoundsException if the four bytes are not all inside {@code b}
   */
  public static int int32(byte[] b, int offset) {
    return (int) INT32.get(b, offset);
  }

  /**
   * The uint32 at {@code b[offset .. offset + 4)}, as a non-negative long.
   *
   * @throws IndexOutOfBoundsException if the four bytes are not all inside {@code b}
   */
  public static long uint32(byte[] b, int offset) {
    return Integer.toUnsignedLong(int32(b, offset));
  }

  /**
   * The int64 at {@code b[offset .. offset + 8)} (SipHash words, salts).
   *
   * @throws IndexOutOfBoundsException if the eight bytes are not all inside {@code b}
   */
  public static long int64(byte[] b, int offset) {
    return (long) INT64.get(b, offset);
  }
}
