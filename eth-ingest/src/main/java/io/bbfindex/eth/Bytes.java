package io.bbfindex.eth;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Big-endian long and int access to byte arrays (the order hashes and the record files use). */
final class Bytes {
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private Bytes() {}

  static long getLong(byte[] b, int offset) {
    return (long) LONG.get(b, offset);
  }

  static void putLong(byte[] b, int offset, long v) {
    LONG.set(b, offset, v);
  }

  static int getInt(byte[] b, int offset) {
    return (int) INT.get(b, offset);
  }

  static void putInt(byte[] b, int offset, int v) {
    INT.set(b, offset, v);
  }
}
