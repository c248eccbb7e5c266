package io.bbfindex.ingest.leveldb;

import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import java.nio.charset.StandardCharsets;

/**
 * CDBWrapper's value obfuscation: when a database holds the record {@code 0e 00 "obfuscate_key"}
 * (value: CompactSize 8 + 8 key bytes, itself stored plain), every other value is XORed with the
 * key repeated from value offset 0: {@code v[i] ^= key[i % 8]}. Keys are never obfuscated. Core
 * obfuscates only {@code chainstate/}; blocks/index and indexes/* have no key (or an all-zero one),
 * but honouring the record costs nothing and keeps a rewritten DB readable.
 */
public final class Obfuscation {

  /**
   * The LevelDB key of the obfuscation-key record: the serialized std::string {@code
   * "\0obfuscate_key"} (CompactSize 14 first).
   */
  public static final byte[] RECORD_KEY =
      "\u000e\u0000obfuscate_key".getBytes(StandardCharsets.US_ASCII);

  /** The no-op obfuscation (no key record, or an all-zero key). */
  public static final Obfuscation NONE = new Obfuscation(new byte[0]);

  private final byte[] key;

  private Obfuscation(byte[] key) {
    this.key = key;
  }

  /**
   * Reads the key record of {@code db}.
   *
   * @throws CorruptRecordException if the record exists but is not an 8-byte (or empty) vector
   * @throws LevelDbReadException if LevelDB fails
   */
  public static Obfuscation read(LevelDbSnapshot db)
      throws CorruptRecordException, LevelDbReadException {
    byte[] raw = db.get(RECORD_KEY);
    return raw == null ? NONE : decode(raw);
  }

  /** Decodes the key record's value (CompactSize length + key bytes). */
  public static Obfuscation decode(byte[] raw) throws CorruptRecordException {
    ByteCursor c = new ByteCursor("obfuscation key record", RECORD_KEY).reset(raw, 0, raw.length);
    long n = c.readCompactSize(8, "key length");
    if (n != 0 && n != 8) {
      throw c.corrupt("key length", "obfuscation key must be 8 bytes, is " + n);
    }
    byte[] k = c.readBytes((int) n, "key");
    c.expectEnd();
    for (byte b : k) {
      if (b != 0) {
        return new Obfuscation(k);
      }
    }
    return NONE;
  }

  public boolean active() {
    return key.length != 0;
  }

  /** De-obfuscates {@code v[0 .. length)} in place (XOR is its own inverse). */
  public void apply(byte[] v, int length) {
    if (key.length == 0) {
      return;
    }
    for (int i = 0; i < length; i++) {
      v[i] ^= key[i & 7];
    }
  }

  /** A de-obfuscated copy of {@code v}, or {@code v} itself when there is no key. */
  public byte[] plain(byte[] v) {
    if (key.length == 0) {
      return v;
    }
    byte[] out = v.clone();
    apply(out, out.length);
    return out;
  }
}
