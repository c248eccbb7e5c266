package io.bbfindex.ingest.testing;

import static org.fusesource.leveldbjni.JniDBFactory.factory;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.txindex.HashedKeys;
import io.bbfindex.ingest.txindex.SipHash13Uj;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteBatch;

/**
 * Rewrites a copied hashed txindex as Core would have written it under another salt (what a {@code
 * -reindex} does: new salt, every {@code 'x'} row re-keyed; block seqs and offsets kept). Used to
 * force a prefix collision between two chosen txids. Like {@link CoreLevelDbWriter}, the directory
 * is rebuilt with its .ldb tables renamed for leveldbjni 1.8.
 */
public final class HashedIndexRewriter {

  private HashedIndexRewriter() {}

  /**
   * @param txidAt the txid (internal order) of the row at (block seq, offset from the header)
   */
  public static void resalt(Path dbDir, long k0, long k1, BiFunction<Long, Integer, byte[]> txidAt)
      throws IOException {
    SipHash13Uj hasher = new SipHash13Uj(k0, k1);
    Path rw = dbDir.resolveSibling(dbDir.getFileName() + ".rw");
    Files.createDirectories(rw);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dbDir)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        Files.copy(f, rw.resolve(name.endsWith(".ldb") ? name.replace(".ldb", ".sst") : name));
      }
    }
    try (DB db = factory.open(rw.toFile(), new Options())) {
      List<byte[]> old = new ArrayList<>();
      try (DBIterator it = db.iterator()) {
        for (it.seek(new byte[] {HashedKeys.TX_ROW}); it.hasNext(); ) {
          byte[] k = it.next().getKey();
          if (k[0] != HashedKeys.TX_ROW) {
            break;
          }
          old.add(k);
        }
      }
      try (WriteBatch batch = db.createWriteBatch()) {
        for (byte[] k : old) {
          HashedKeys.TxRow row = HashedKeys.decodeTxRow(k);
          byte[] txid = txidAt.apply(row.blockSeq(), row.offsetFromHeader());
          batch.delete(k);
          batch.put(
              HashedKeys.txRowKey(hasher.prefix40(txid, 0), row.blockSeq(), row.offsetFromHeader()),
              new byte[0]);
        }
        batch.put(
            HashedKeys.SALT,
            ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(k0).putLong(k1).array());
        db.write(batch);
      }
    } catch (CorruptRecordException e) {
      throw new UncheckedIOException(e);
    }
    try (Stream<Path> s = Files.walk(dbDir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    Files.move(rw, dbDir);
  }

  /** Adds rows with the given keys (empty values), as Core writes them. */
  public static void addRows(Path dbDir, List<byte[]> keys) throws IOException {
    Map<byte[], byte[]> puts = new java.util.LinkedHashMap<>();
    keys.forEach(k -> puts.put(k, new byte[0]));
    CoreLevelDbWriter.putAll(dbDir, puts);
  }
}
