package io.bbfindex.ingest.records;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.ingest.leveldb.Obfuscation;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * LevelDB key layouts of Bitcoin Core's block tree DB ({@code blocks/index}) and txindex ({@code
 * indexes/txindex}, or {@code blocks/index} up to v0.16). Hashes are 32 bytes in internal (SHA-256d
 * output) order, never the displayed, reversed hex.
 */
public final class DbKeys {

  /** {@code 'b' + hash(32)} → CDiskBlockIndex. */
  public static final byte BLOCK_INDEX = 'b';

  /** {@code 'f' + int32 LE file number} → CBlockFileInfo (a fixed 4-byte int, not a VARINT). */
  public static final byte BLOCK_FILES = 'f';

  /** {@code 'l'} → int32 LE, the highest block file number. */
  public static final byte LAST_BLOCK = 'l';

  /** {@code 'R'} → '1' while a reindex is in progress. */
  public static final byte REINDEX = 'R';

  /** {@code 'F' + CompactSize(len) + name} → '1' / '0'. */
  static final byte FLAG = 'F';

  /** {@code 't' + txid(32)} → CDiskTxPos. */
  public static final byte TX_INDEX = 't';

  /** {@code 'B'} (txindex) → CBlockLocator of the block the index is committed to. */
  public static final byte BEST_BLOCK = 'B';

  /** {@code 'T'} (blocks/index, 0.17-22.x) → locator of an unfinished legacy txindex migration. */
  static final byte TXINDEX_MIGRATION = 'T';

  /**
   * The obfuscation-key record: serialized std::string "\0obfuscate_key" (CompactSize 14 first).
   * Defined by {@link Obfuscation}, which reads it; listed here with Core's other keys.
   */
  public static final byte[] OBFUSCATE_KEY = Obfuscation.RECORD_KEY;

  private DbKeys() {}

  public static byte[] blockKey(byte[] hash) {
    return prefixed(BLOCK_INDEX, hash);
  }

  public static byte[] txKey(byte[] txid) {
    return prefixed(TX_INDEX, txid);
  }

  public static byte[] fileKey(int file) {
    return new byte[] {
      BLOCK_FILES, (byte) file, (byte) (file >>> 8), (byte) (file >>> 16), (byte) (file >>> 24)
    };
  }

  /**
   * Keys of the hashed txindex layout of Core >= 32 (PR #35531): serialized std::strings. Their
   * presence means rows this reader cannot find with a 't' lookup.
   */
  public static final List<byte[]> TXINDEX_V2_MARKERS =
      List.of(stringKey("txid_hash_salt"), stringKey("best_block_v2"));

  /** {@code 'F' + CompactSize(len) + name}; names are short, so the CompactSize is one byte. */
  public static byte[] flagKey(String name) {
    return concat(new byte[] {FLAG}, stringKey(name));
  }

  /** A serialized short std::string used as a key: CompactSize(len) + ASCII. */
  public static byte[] stringKey(String name) {
    byte[] n = ascii(name);
    requireArgument(n.length < 253, "key name must be shorter than 253 characters", name);
    return concat(new byte[] {(byte) n.length}, n);
  }

  private static byte[] prefixed(byte prefix, byte[] hash) {
    requireArgument(hash.length == 32, "hash must be 32 bytes (internal order)", hash.length);
    byte[] k = new byte[33];
    k[0] = prefix;
    System.arraycopy(hash, 0, k, 1, 32);
    return k;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] r = new byte[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
