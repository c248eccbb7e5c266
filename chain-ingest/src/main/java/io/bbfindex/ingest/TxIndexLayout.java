package io.bbfindex.ingest;

import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.txindex.HashedKeys;
import java.io.IOException;
import java.util.Locale;

/**
 * Which rows a txindex holds ({@code BITCOIN-FORMATS.md} §3.5). Core <= 31 writes legacy {@code 't'
 * + txid} rows; Core >= 32 (PR #35531) writes hashed {@code 'x'} rows that store no txid; a v32
 * node upgraded from an older index keeps the old {@code 't'} rows and adds {@code 'x'} rows
 * (mixed).
 */
public enum TxIndexLayout {
  /**
   * Only {@code 't'} rows (or none yet): every indexed txid is stored, the index can be scanned.
   */
  LEGACY,
  /** Only hashed {@code 'x'} rows: lookups by salted prefix, txids come from the block data. */
  HASHED,
  /** Both: old blocks in {@code 't'} rows, newer ones in {@code 'x'} rows. */
  MIXED,
  /**
   * No txindex at all (Core's default, {@code -txindex=0}): txids come from the blk files and
   * lookups from bbf-index's own index ({@code io.bbfindex.ingest.ownindex}).
   */
  NONE;

  /** Whether the index has the salt of hashed rows (its {@code 'x'} rows must be searched). */
  public boolean hasHashedRows() {
    return this == HASHED || this == MIXED;
  }

  /** Whether {@code 't'} rows may exist (lookups must try them). */
  public boolean hasLegacyRows() {
    return this == LEGACY || this == MIXED;
  }

  /**
   * Whether a scan of the index yields every indexed txid (false: txids must come from blk files).
   */
  public boolean storesEveryTxid() {
    return this == LEGACY;
  }

  /** Lower-case name, as shown in ingest's output, {@code /v1/status} and the metrics. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Detects the layout of an {@code indexes/txindex} database: hashed if Core wrote its salt record
   * (it does when it creates or upgrades the index) or any {@code 'x'} row, legacy rows if any
   * {@code 't'} key exists.
   *
   * @throws IOException if LevelDB fails reading
   */
  public static TxIndexLayout detect(LevelDbSnapshot db) throws IOException {
    // an 'x' row without its salt is a damaged hashed index: HashedTxLookup.open refuses it
    boolean hashed = db.get(HashedKeys.SALT) != null || hasKeyWithPrefix(db, HashedKeys.TX_ROW);
    boolean legacy = hasKeyWithPrefix(db, DbKeys.TX_INDEX);
    return hashed ? (legacy ? MIXED : HASHED) : LEGACY;
  }

  private static boolean hasKeyWithPrefix(LevelDbSnapshot db, byte prefix) throws IOException {
    try {
      db.scan(
          new byte[] {prefix},
          new byte[] {(byte) (prefix + 1)},
          (k, v) -> {
            throw new StopScan();
          });
      return false;
    } catch (StopScan found) {
      return true;
    }
  }

  /** Ends a scan after its first entry (no stack trace: it is control flow, not a failure). */
  private static final class StopScan extends IOException {
    StopScan() {
      super("a key with the prefix exists");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
