package io.bbfindex.ingest.records;

import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import java.util.ArrayList;
import java.util.List;

/**
 * Core's CBlockLocator as stored under the txindex's {@code 'B'} key: int32 LE (dummy) version,
 * CompactSize count, count × 32-byte block hashes. {@code hashes().get(0)} is the block the index
 * was last committed at (which may lag the 't' rows by up to a commit interval).
 */
public record BlockLocator(int version, List<byte[]> hashes) {

  public static BlockLocator decode(byte[] key, byte[] value) throws CorruptRecordException {
    ByteCursor c = new ByteCursor("'B' best-block locator", key).reset(value, 0, value.length);
    int version = c.readInt32LE("version");
    long n = c.readCompactSize(ByteCursor.MAX_COMPACT_SIZE, "vHave count");
    // Check the count against the bytes present before sizing anything from it.
    if (n * 32 != c.remaining()) {
      throw c.corrupt(
          "vHave", n + " hashes need " + (n * 32) + " bytes, " + c.remaining() + " present");
    }
    List<byte[]> hashes = new ArrayList<>((int) n);
    for (int i = 0; i < n; i++) {
      hashes.add(c.readBytes(32, "vHave[" + i + "]"));
    }
    c.expectEnd();
    return new BlockLocator(version, List.copyOf(hashes));
  }

  /** The committed tip, or empty for an empty locator (an index that never committed). */
  public java.util.Optional<byte[]> tip() {
    return hashes.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(hashes.get(0).clone());
  }
}
