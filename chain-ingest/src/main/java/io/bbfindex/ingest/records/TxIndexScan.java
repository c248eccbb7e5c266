package io.bbfindex.ingest.records;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.ingest.encoding.ByteCursor;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.Obfuscation;
import java.io.IOException;

/**
 * The full scan of a txindex's {@code 't'} rows, shared by {@link io.bbfindex.ingest.NodeIndex} and
 * the tests' bare-txindex reader ({@code io.bbfindex.ingest.testing.TxIndexOnly}): one reused
 * cursor, txid array and value buffer, so a record costs no allocation beyond leveldbjni's own
 * key/value arrays (this loop is the ingest hot path: millions of records per second, {@code
 * ./bbf-index bench ingest}).
 */
public final class TxIndexScan {

  private TxIndexScan() {}

  /** The number of distinct first txid bytes: ranges are given in [0, 256]. */
  public static final int FIRST_BYTES = 256;

  /**
   * Calls {@code consumer} for every {@code 't'} row of {@code db}, in key (txid) order.
   *
   * @throws CorruptRecordException naming the row's key if a key or value is malformed
   * @throws IOException (LevelDbReadException) if LevelDB fails
   */
  public static void scan(LevelDbSnapshot db, Obfuscation obfuscation, TxRecordConsumer consumer)
      throws IOException {
    db.scan(DbKeys.TX_INDEX, new RowDecoder(obfuscation, consumer));
  }

  /**
   * Calls {@code consumer} for the {@code 't'} rows whose txid's first byte (internal order) is in
   * {@code [fromFirstByte, toFirstByte)}, in key order; txids are uniform, so equal ranges hold
   * about equal numbers of rows. Ranges may be scanned on several threads at once.
   *
   * @throws IllegalArgumentException unless {@code 0 <= fromFirstByte <= toFirstByte <= 256}
   */
  public static void scan(
      LevelDbSnapshot db,
      Obfuscation obfuscation,
      int fromFirstByte,
      int toFirstByte,
      TxRecordConsumer consumer)
      throws IOException {
    requireArgument(
        0 <= fromFirstByte && fromFirstByte <= toFirstByte && toFirstByte <= FIRST_BYTES,
        "[from, to) must satisfy 0 <= from <= to <= 256",
        "[" + fromFirstByte + ", " + toFirstByte + ")");
    if (fromFirstByte == toFirstByte) {
      return;
    }
    byte[] from = {DbKeys.TX_INDEX, (byte) fromFirstByte};
    byte[] to =
        toFirstByte == FIRST_BYTES
            ? new byte[] {DbKeys.TX_INDEX + 1}
            : new byte[] {DbKeys.TX_INDEX, (byte) toFirstByte};
    db.scan(from, to, new RowDecoder(obfuscation, consumer));
  }

  /** Decodes one row per visit, reusing its cursor, txid array and value buffer. */
  private static final class RowDecoder implements LevelDbSnapshot.EntryVisitor {
    private final Obfuscation obfuscation;
    private final TxRecordConsumer consumer;
    private final byte[] txid = new byte[32];
    private final ByteCursor cursor = new ByteCursor("'t' txindex record", null);
    private byte[] plain = new byte[16];

    RowDecoder(Obfuscation obfuscation, TxRecordConsumer consumer) {
      this.obfuscation = obfuscation;
      this.consumer = consumer;
    }

    @Override
    public void visit(byte[] k, byte[] v) throws IOException {
      byte[] value = v;
      if (obfuscation.active()) {
        if (v.length > plain.length) {
          plain = new byte[v.length];
        }
        System.arraycopy(v, 0, plain, 0, v.length);
        obfuscation.apply(plain, v.length);
        value = plain;
      }
      cursor.key(k).reset(value, 0, v.length);
      if (k.length != 33) {
        throw cursor.corrupt(
            "key", "a 't' key is 't' + 32-byte txid, this one has " + k.length + " bytes");
      }
      int file = cursor.readVarInt32("nFile");
      long pos = cursor.readVarUint32("nPos");
      long off = cursor.readVarUint32("nTxOffset");
      cursor.expectEnd();
      System.arraycopy(k, 1, txid, 0, 32);
      consumer.accept(txid, file, pos, off);
    }
  }
}
