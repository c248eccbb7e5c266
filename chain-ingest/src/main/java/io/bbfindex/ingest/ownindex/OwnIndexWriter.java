package io.bbfindex.ingest.ownindex;

import static io.bbfindex.ingest.ownindex.OwnIndexFormat.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Writes an own index file shard by shard (only one shard's slots in memory), into a temporary file
 * beside the target that is synced and then renamed over it: a reader sees the old file or the new
 * one whole, never a torn one, and a build killed midway leaves the old file as it was.
 */
final class OwnIndexWriter implements AutoCloseable {

  private final Path target;
  private final Path temp;
  private final FileChannel channel;
  private final int shards;
  private final ByteBuffer table;
  private long position;
  private int written;
  private long keys;

  /**
   * @param shards the shards that will be {@link #add}ed, a power of two
   */
  OwnIndexWriter(Path target, int shards) throws IOException {
    this.target = target;
    this.shards = shards;
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    this.temp = Files.createTempFile(dir, target.getFileName() + ".", ".tmp");
    this.channel = FileChannel.open(temp, StandardOpenOption.WRITE);
    this.table = ByteBuffer.allocate(SHARD_ENTRY_BYTES * shards).order(ByteOrder.LITTLE_ENDIAN);
    this.position = dataStart(shards);
  }

  /** Appends the next shard (shards come in order 0, 1, ...). */
  void add(FuseShardBuilder.Built shard, int keyCount) throws IOException {
    ByteBuffer data = ByteBuffer.allocate(shard.packed().length * 8).order(ByteOrder.LITTLE_ENDIAN);
    data.asLongBuffer().put(shard.packed());
    CRC32C crc = new CRC32C();
    crc.update(data.duplicate());
    int e = written * SHARD_ENTRY_BYTES;
    table.putLong(e + ENTRY_SEED, shard.seed());
    table.putLong(e + ENTRY_DATA_OFFSET, position);
    table.putInt(e + ENTRY_KEYS, keyCount);
    table.putInt(e + ENTRY_SEGMENT_LENGTH, shard.shape().segmentLength());
    table.putInt(e + ENTRY_SEGMENT_COUNT, shard.shape().segmentCount());
    table.putInt(e + ENTRY_DATA_CRC, (int) crc.getValue());
    while (data.hasRemaining()) {
      position += channel.write(data, position);
    }
    written++;
    keys += keyCount;
  }

  /** Writes header and table, syncs and renames the file into place. */
  void commit(OwnIndexHeader header) throws IOException {
    if (written != shards || header.shards() != shards || keys != header.keyCount()) {
      throw new IllegalStateException(
          written + " shards of " + keys + " keys written, the header says " + header);
    }
    CRC32C tableCrc = new CRC32C();
    tableCrc.update(table.array());
    ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    h.put(MAGIC);
    h.putInt(OFF_VERSION, VERSION);
    h.putInt(OFF_HEADER_LENGTH, HEADER_BYTES);
    h.put(OFF_FILE_BITS, (byte) header.packing().fileBits());
    h.put(OFF_OFFSET_BITS, (byte) header.packing().offsetBits());
    h.put(OFF_SHARD_BITS, (byte) header.shardBits());
    h.putInt(OFF_TIP_HEIGHT, header.tipHeight());
    h.putLong(OFF_KEY_COUNT, header.keyCount());
    h.put(OFF_CHAIN_DIGEST, header.chainDigest());
    h.put(OFF_TIP_HASH, header.tipHash());
    h.putInt(OFF_TABLE_CRC, (int) tableCrc.getValue());
    CRC32C headerCrc = new CRC32C();
    headerCrc.update(h.array(), 0, OFF_HEADER_CRC);
    h.putInt(OFF_HEADER_CRC, (int) headerCrc.getValue());
    h.clear();
    table.clear();
    long p = 0;
    while (h.hasRemaining()) {
      p += channel.write(h, p);
    }
    while (table.hasRemaining()) {
      p += channel.write(table, p);
    }
    channel.force(true);
    channel.close();
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** Removes the temporary file of a build that did not commit. */
  @Override
  public void close() throws IOException {
    channel.close();
    Files.deleteIfExists(temp);
  }
}
