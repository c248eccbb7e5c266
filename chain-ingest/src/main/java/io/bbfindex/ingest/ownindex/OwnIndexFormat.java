package io.bbfindex.ingest.ownindex;

import java.nio.charset.StandardCharsets;

/** The byte layout of an own index file, version 1 (chain-ingest/OWN-INDEX-FORMAT.md). */
final class OwnIndexFormat {

  static final byte[] MAGIC = "BBFOWNTX".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  static final int HEADER_BYTES = 112;
  static final int SHARD_ENTRY_BYTES = 32;

  // header fields
  static final int OFF_VERSION = 8;
  static final int OFF_HEADER_LENGTH = 12;
  static final int OFF_FILE_BITS = 16;
  static final int OFF_OFFSET_BITS = 17;
  static final int OFF_SHARD_BITS = 18;
  static final int OFF_TIP_HEIGHT = 20;
  static final int OFF_KEY_COUNT = 24;
  static final int OFF_CHAIN_DIGEST = 32;
  static final int OFF_TIP_HASH = 64;
  static final int OFF_TABLE_CRC = 104;
  static final int OFF_HEADER_CRC = 108;

  // shard entry fields
  static final int ENTRY_SEED = 0;
  static final int ENTRY_DATA_OFFSET = 8;
  static final int ENTRY_KEYS = 16;
  static final int ENTRY_SEGMENT_LENGTH = 20;
  static final int ENTRY_SEGMENT_COUNT = 24;
  static final int ENTRY_DATA_CRC = 28;

  private OwnIndexFormat() {}

  /** Where the shard data starts: after the header and the shard table. */
  static long dataStart(int shards) {
    return HEADER_BYTES + (long) SHARD_ENTRY_BYTES * shards;
  }
}
