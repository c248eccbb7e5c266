package io.bbfindex.ingest.ownindex;

import io.bbfindex.ingest.records.BlockInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * What an own index was built from: SHA-256 over every block with data, sorted by hash, each as its
 * hash (32 bytes), file (4) and data position (8, little-endian). A block added, removed or moved
 * changes it; an index whose digest (or active tip) is not the node's is rebuilt.
 */
final class ChainDigest {

  private ChainDigest() {}

  static byte[] of(Collection<BlockInfo> blocks) {
    List<BlockInfo> withData =
        blocks.stream()
            .filter(BlockPositions::holdsData)
            .sorted((a, b) -> Arrays.compareUnsigned(a.hash(), b.hash()))
            .toList();
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      ByteBuffer place = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
      for (BlockInfo b : withData) {
        md.update(b.hash());
        place.clear();
        md.update(place.putInt(b.file()).putLong(b.dataPos()).array());
      }
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }
}
