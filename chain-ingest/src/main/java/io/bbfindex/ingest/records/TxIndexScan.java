package io.bbfindex.ingest.records;

import io.bbfindex.ingest.TxRecordConsumer;
import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.Obfuscation;
import java.io.IOException;

/**
 * The full scan of a txindex's {@code 't'} rows, shared by {@link io.bbfindex.ingest.NodeIndex}
 * and {@link io.bbfindex.ingest.TxIndexOnly}: one reused cursor, txid array and value buffer, so a
 * record costs no allocation beyond leveldbjni's own key/value arrays (this loop is the ingest hot
 * path: millions of records per second).
 */
public final class TxIndexScan {

  private TxIndexScan() {}

  /**
   * Calls {@code consumer} for every {@code 't'} row of {@code db}, in key (txid) order.
   *
   * @throws CorruptRecordException naming the row's key if a key or value is malformed
   * @throws IOException (LevelDbReadException) if LevelDB fails
   */
  public static void scan(LevelDbSnapshot db, Obfuscation obfuscation, TxRecordConsumer consumer)
      throws IOException {
    byte[] txid = new byte[32];
    byte[][] plain = {new byte[16]};
    ByteCursor cursor = new ByteCursor("'t' txindex record", null);
    db.scan(DbKeys.TX_INDEX, (k, v) -> {
      byte[] value = v;
      if (obfuscation.active()) {
        if (v.length > plain[0].length) {
          plain[0] = new byte[v.length];
        }
        System.arraycopy(v, 0, plain[0], 0, v.length);
        obfuscation.apply(plain[0], v.length);
        value = plain[0];
      }
      cursor.key(k).reset(value, 0, v.length);
      if (k.length != 33) {
        throw cursor.corrupt("key", "a 't' key is 't' + 32-byte txid, this one has " + k.length + " bytes");
      }
      int file = cursor.readVarInt32("nFile");
      long pos = cursor.readVarUint32("nPos");
      long off = cursor.readVarUint32("nTxOffset");
      cursor.expectEnd();
      System.arraycopy(k, 1, txid, 0, 32);
      consumer.accept(txid, file, pos, off);
    });
  }
}
