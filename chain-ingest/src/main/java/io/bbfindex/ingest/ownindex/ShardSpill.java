package io.bbfindex.ingest.ownindex;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The build's first pass writes every (key, position) to a temporary bucket file by shard, so that
 * the second pass holds one shard in memory at a time, not the chain: memory is bounded by the
 * shard size, disk by 24 bytes a txid (about 34 GB at mainnet scale, deleted after the build). One
 * bucket per shard up to {@value #MAX_BUCKETS} (file descriptors); beyond, a bucket holds several
 * shards and is read once per shard.
 *
 * <p>Record: {@code k0} (8), {@code k1} (8), {@code file << 40 | offset} (8), big-endian.
 */
final class ShardSpill implements AutoCloseable {

  static final int MAX_BUCKETS = 4096;
  private static final int BUFFER = 16 << 10;

  private final Path dir;
  private final int shardBits;
  private final int bucketBits;
  private final DataOutputStream[] out;

  ShardSpill(Path tempParent, int shardBits) throws IOException {
    Files.createDirectories(tempParent);
    this.dir = Files.createTempDirectory(tempParent, "ownindex-spill-");
    this.shardBits = shardBits;
    this.bucketBits = Math.min(shardBits, Integer.numberOfTrailingZeros(MAX_BUCKETS));
    this.out = new DataOutputStream[1 << bucketBits];
    for (int b = 0; b < out.length; b++) {
      out[b] =
          new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(bucket(b)), BUFFER));
    }
  }

  private Path bucket(int b) {
    return dir.resolve("bucket-" + b);
  }

  private int bucketOf(int shard) {
    return shard >>> (shardBits - bucketBits);
  }

  void add(long k0, long k1, int file, long offset) throws IOException {
    DataOutputStream o = out[bucketOf(TxidKeys.shard(k0, shardBits))];
    o.writeLong(k0);
    o.writeLong(k1);
    o.writeLong((long) file << 40 | offset);
  }

  /** Ends the first pass. */
  void finish() throws IOException {
    for (DataOutputStream o : out) {
      o.close();
    }
  }

  /** One spilled record, as the second pass sees it. */
  interface RecordSink {
    void accept(long k0, long k1, int file, long offset);
  }

  /** Reads back the records of {@code shard}. */
  void read(int shard, RecordSink sink) throws IOException {
    try (DataInputStream in =
        new DataInputStream(
            new BufferedInputStream(Files.newInputStream(bucket(bucketOf(shard))), 1 << 16))) {
      while (true) {
        long k0;
        try {
          k0 = in.readLong();
        } catch (EOFException end) {
          return;
        }
        long k1 = in.readLong();
        long place = in.readLong();
        if (TxidKeys.shard(k0, shardBits) == shard) {
          sink.accept(k0, k1, (int) (place >>> 40), place & ((1L << 40) - 1));
        }
      }
    }
  }

  /** Deletes the bucket files. */
  @Override
  public void close() throws IOException {
    for (DataOutputStream o : out) {
      o.close();
    }
    for (int b = 0; b < out.length; b++) {
      Files.deleteIfExists(bucket(b));
    }
    Files.deleteIfExists(dir);
  }
}
