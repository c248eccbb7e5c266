package io.bbfindex.ingest.ownindex;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Writes own index files from given txids and values, through the product's writer. */
final class OwnIndexFiles {

  private OwnIndexFiles() {}

  static void write(
      Path file,
      List<byte[]> txids,
      long[] values,
      PositionPacking packing,
      int shardBits,
      byte[] digest,
      byte[] tip,
      int tipHeight)
      throws IOException {
    int shards = 1 << shardBits;
    ShardKeys[] keys = new ShardKeys[shards];
    for (int s = 0; s < shards; s++) {
      keys[s] = new ShardKeys(16);
    }
    for (int i = 0; i < txids.size(); i++) {
      long k0 = TxidKeys.k0(txids.get(i), 0);
      keys[TxidKeys.shard(k0, shardBits)].add(k0, TxidKeys.k1(txids.get(i), 0), values[i], 0);
    }
    long total = 0;
    try (OwnIndexWriter w = new OwnIndexWriter(file, shards)) {
      for (int s = 0; s < shards; s++) {
        keys[s].removeDuplicates();
        w.add(FuseShardBuilder.build(keys[s], s, packing.valueBits()), keys[s].size());
        total += keys[s].size();
      }
      w.commit(new OwnIndexHeader(packing, shardBits, total, digest, tip, tipHeight));
    }
  }
}
