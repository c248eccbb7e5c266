package io.bbfindex.ingest.blockfile;

import java.io.IOException;

/**
 * Receives the framed block records of a blk file, in file order, from {@link
 * BlockFileReader#scan}.
 */
@FunctionalInterface
public interface BlockRecordVisitor {

  /**
   * @param dataPos offset of the block's header (just after the 8-byte magic+size prefix)
   * @param size the prefix's size field: header + tx count + transactions
   * @param header the 80-byte header (de-obfuscated; a fresh array)
   * @return {@code false} to stop the scan
   */
  boolean visit(long dataPos, long size, byte[] header) throws IOException;
}
