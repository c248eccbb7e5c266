package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.testing.CoreLevelDbWriter;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Core obfuscates only chainstate/, but CDBWrapper would obfuscate any DB created with a key
 * record: a txindex copy rewritten the way CDBWrapper writes (key record {@code
 * 0e00"obfuscate_key"} = {@code 08 + 8 bytes} stored plain, every other value XORed with the key
 * from offset 0) must give exactly the same answers.
 */
class ObfuscatedTxindexTest {

  private static final byte[] KEY = HexFormat.of().parseHex("5a17c3e2090b4f88");

  @TempDir Path tmp;

  @Test
  void findTxForEachTxAndTheLocatorSeeThroughTheKey() throws IOException {
    Archive a = Archive.MAINNET_LDB;
    Path dd = Fixtures.extract(a, tmp.resolve("data"));
    Map<byte[], byte[]> rewritten = new HashMap<>();
    try (LevelDbSnapshot db =
        LevelDbSnapshot.open(dd.resolve("indexes/txindex"), tmp.resolve("read"))) {
      db.scan(DbKeys.TX_INDEX, (k, v) -> rewritten.put(k, xor(v)));
      rewritten.put(new byte[] {DbKeys.BEST_BLOCK}, xor(db.get(new byte[] {DbKeys.BEST_BLOCK})));
    }
    byte[] keyRecord = new byte[9];
    keyRecord[0] = 8;
    System.arraycopy(KEY, 0, keyRecord, 1, 8);
    rewritten.put(DbKeys.OBFUSCATE_KEY, keyRecord);
    CoreLevelDbWriter.putAll(dd.resolve("indexes/txindex"), rewritten);
    try (LevelDbSnapshot db =
        LevelDbSnapshot.open(dd.resolve("indexes/txindex"), tmp.resolve("check"))) {
      // the rewrite took: the key record is there and the stored values are the XORed ones
      assertTrue(Obfuscation.read(db).active());
      db.scan(
          DbKeys.TX_INDEX, (k, v) -> assertArrayEquals(rewritten.get(findKey(rewritten, k)), v));
    }

    List<TxRow> rows = Fixtures.txRows(a);
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("work"))) {
      for (TxRow r : rows) {
        TxLocation loc = idx.findTx(r.txidInternal()).orElseThrow();
        assertEquals(r.absOffset(), loc.txFileOffset(), r.txidHex());
        assertEquals(r.txidHex(), idx.readTransaction(loc).getTxId().toString());
      }
      int[] n = {0};
      idx.forEachTx(
          (txid, file, pos, off) -> {
            assertTrue(pos > 0 && off > 0);
            n[0]++;
          });
      assertEquals(rows.size(), n[0]);
      assertEquals(599, idx.txindexTipHeight().orElseThrow());
    }
  }

  private static byte[] findKey(Map<byte[], byte[]> m, byte[] k) {
    return m.keySet().stream().filter(x -> java.util.Arrays.equals(x, k)).findFirst().orElseThrow();
  }

  private static byte[] xor(byte[] v) {
    byte[] out = v.clone();
    for (int i = 0; i < out.length; i++) {
      out[i] ^= KEY[i % 8];
    }
    return out;
  }
}
