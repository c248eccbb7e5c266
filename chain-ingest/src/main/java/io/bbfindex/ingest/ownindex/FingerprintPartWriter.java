package io.bbfindex.ingest.ownindex;

import static io.bbfindex.ingest.ownindex.FingerprintFormat.*;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_DATA_CRC;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_DATA_OFFSET;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_KEYS;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_SEED;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_SEGMENT_COUNT;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.ENTRY_SEGMENT_LENGTH;
import static io.bbfindex.ingest.ownindex.OwnIndexFormat.SHARD_ENTRY_BYTES;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Writes one fingerprint part: the txids of up to {@value FingerprintFormat#MAX_BLOCKS} blocks,
 * spilled by shard ({@link ShardSpill}, so memory is one shard's keys whatever the part's size),
 * each shard solved as a binary fuse retrieval function of 64-bit values ({@link
 * FuseShardBuilder#solve}), into a temporary file that is synced and renamed into place: a reader
 * sees the whole part or none.
 */
final class FingerprintPartWriter {

  private FingerprintPartWriter() {}

  /**
   * @param expectedKeys about how many txids (sizes the shards)
   * @param salt the fingerprints' key (random in production, fixed for the golden file)
   * @return the txids stored (a txid of two blocks once)
   */
  static long write(
      Path target,
      List<FingerprintBlock> blocks,
      long expectedKeys,
      FingerprintStore.TxidFeed txids,
      Path tempDir,
      long salt)
      throws IOException {
    return write(
        target,
        blocks,
        expectedKeys,
        txids,
        tempDir,
        salt,
        OwnIndexBuilder.shardBits(expectedKeys));
  }

  /** As above, in {@code 2^shardBits} shards (the golden file has two). */
  static long write(
      Path target,
      List<FingerprintBlock> blocks,
      long expectedKeys,
      FingerprintStore.TxidFeed txids,
      Path tempDir,
      long salt,
      int shardBits)
      throws IOException {
    if (blocks.isEmpty() || blocks.size() > MAX_BLOCKS) {
      throw new IllegalArgumentException("a part holds 1 to " + MAX_BLOCKS + " blocks");
    }
    int shards = 1 << shardBits;
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path temp = Files.createTempFile(dir, target.getFileName() + ".", ".tmp");
    try (ShardSpill spill = new ShardSpill(tempDir, shardBits);
        FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      txids.forEach(
          (txid, offset, ordinal) ->
              spill.add(TxidKeys.k0(txid, offset), TxidKeys.k1(txid, offset), ordinal, 0));
      spill.finish();
      ByteBuffer table =
          ByteBuffer.allocate(SHARD_ENTRY_BYTES * shards).order(ByteOrder.LITTLE_ENDIAN);
      long position = dataStart(blocks.size(), shards);
      long keys = 0;
      for (int s = 0; s < shards; s++) {
        ShardKeys shard = new ShardKeys((int) Math.min(expectedKeys >> shardBits, 1 << 24) + 16);
        spill.read(
            s,
            (k0, k1, ordinal, unused) ->
                shard.add(
                    k0,
                    k1,
                    (long) ordinal << FINGERPRINT_BITS | fingerprint(k0, k1, salt),
                    blocks.get(ordinal).priority()));
        shard.removeDuplicates();
        FuseShardBuilder.Built built = FuseShardBuilder.solve(shard, s);
        ByteBuffer data =
            ByteBuffer.allocate(built.packed().length * 8).order(ByteOrder.LITTLE_ENDIAN);
        data.asLongBuffer().put(built.packed());
        CRC32C crc = new CRC32C();
        crc.update(data.duplicate());
        int e = s * SHARD_ENTRY_BYTES;
        table.putLong(e + ENTRY_SEED, built.seed());
        table.putLong(e + ENTRY_DATA_OFFSET, position);
        table.putInt(e + ENTRY_KEYS, shard.size());
        table.putInt(e + ENTRY_SEGMENT_LENGTH, built.shape().segmentLength());
        table.putInt(e + ENTRY_SEGMENT_COUNT, built.shape().segmentCount());
        table.putInt(e + ENTRY_DATA_CRC, (int) crc.getValue());
        while (data.hasRemaining()) {
          position += ch.write(data, position);
        }
        keys += shard.size();
      }
      ByteBuffer blockTable =
          ByteBuffer.allocate(BLOCK_ENTRY_BYTES * blocks.size()).order(ByteOrder.LITTLE_ENDIAN);
      for (FingerprintBlock b : blocks) {
        blockTable.put(b.hash()).putInt(b.height());
      }
      CRC32C tableCrc = new CRC32C();
      tableCrc.update(blockTable.array());
      tableCrc.update(table.array());
      ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      h.put(MAGIC);
      h.putInt(OFF_VERSION, VERSION);
      h.putInt(OFF_HEADER_LENGTH, HEADER_BYTES);
      h.put(OFF_FINGERPRINT_BITS, (byte) FINGERPRINT_BITS);
      h.put(OFF_ORDINAL_BITS, (byte) ORDINAL_BITS);
      h.put(OFF_SHARD_BITS, (byte) shardBits);
      h.putInt(OFF_BLOCK_COUNT, blocks.size());
      h.putLong(OFF_KEY_COUNT, keys);
      h.putLong(OFF_SALT, salt);
      h.putInt(OFF_TABLE_CRC, (int) tableCrc.getValue());
      CRC32C headerCrc = new CRC32C();
      headerCrc.update(h.array(), 0, OFF_HEADER_CRC);
      h.putInt(OFF_HEADER_CRC, (int) headerCrc.getValue());
      long p = 0;
      for (ByteBuffer b : List.of(h.clear(), blockTable.clear(), table.clear())) {
        while (b.hasRemaining()) {
          p += ch.write(b, p);
        }
      }
      ch.force(true);
      ch.close();
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return keys;
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
