package io.bbfindex.ingest.blockfile;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The block-file obfuscation of Bitcoin Core >= 28 ({@code -blocksxor}): {@code
 * <blocksdir>/xor.dat} holds exactly 8 raw bytes, and byte {@code p} of every blk/rev file is
 * stored as {@code plain[p] ^ key[p % 8]}, where {@code p} is the absolute position in the file
 * (magic and size fields included). No file, or an all-zero key (what an upgraded pre-28 blocksdir
 * gets), means none.
 */
public final class BlocksXorKey {

  public static final String FILE_NAME = "xor.dat";
  public static final BlocksXorKey NONE = new BlocksXorKey(new byte[8], false);

  private final byte[] key;
  private final boolean active;

  private BlocksXorKey(byte[] key, boolean active) {
    this.key = key;
    this.active = active;
  }

  /**
   * Reads {@code blocksDir/xor.dat}.
   *
   * @throws CorruptRecordException if the file exists but is not exactly 8 bytes (Core refuses to
   *     start then too); the message names the file
   */
  public static BlocksXorKey read(Path blocksDir) throws IOException {
    Path f = blocksDir.resolve(FILE_NAME);
    if (!Files.exists(f)) {
      return NONE;
    }
    long size = Files.size(f);
    if (size != 8) {
      throw new CorruptRecordException(
          f + " has " + size + " bytes; the block-file XOR key must be exactly 8");
    }
    return of(Files.readAllBytes(f));
  }

  /** A key from its 8 bytes (all zero = none). */
  public static BlocksXorKey of(byte[] key) {
    requireArgument(key.length == 8, "XOR key must be 8 bytes", key.length);
    for (byte b : key) {
      if (b != 0) {
        return new BlocksXorKey(key.clone(), true);
      }
    }
    return NONE;
  }

  public boolean active() {
    return active;
  }

  /**
   * Un-XORs (or XORs: the same) {@code buf[off .. off+len)}, which was read at {@code filePos}.
   * Eight bytes at a time: the key, rotated to the position, is one little-endian long (whole blk
   * files go through here when txids are computed from block data, so a byte loop would cost as
   * much as hashing them).
   */
  public void apply(byte[] buf, int off, int len, long filePos) {
    if (!active) {
      return;
    }
    long rotated = 0;
    for (int b = 0; b < 8; b++) {
      rotated |= (key[(int) ((filePos + b) & 7)] & 0xFFL) << (8 * b);
    }
    int i = 0;
    for (; i <= len - 8; i += 8) {
      LONG_LE.set(buf, off + i, (long) LONG_LE.get(buf, off + i) ^ rotated);
    }
    for (; i < len; i++) {
      buf[off + i] ^= key[(int) ((filePos + i) & 7)];
    }
  }

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  public byte[] bytes() {
    return key.clone();
  }
}
