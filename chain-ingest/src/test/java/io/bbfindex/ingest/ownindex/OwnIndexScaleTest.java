package io.bbfindex.ingest.ownindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The size target of issue 26 (at most 6 bytes a txid on disk) at mainnet-sized shards: 4 shards of
 * about 2^20 random txids each (mainnet's 1.4 billion txids make 2,048 shards of about 680,000),
 * with mainnet-wide 40-bit positions (13 bits of file, 27 of offset). Prints {@code
 * own_index_bytes_per_txid} and the build rate, as the {@code bench scale} summary lines do.
 */
class OwnIndexScaleTest {

  @TempDir Path tmp;

  @Test
  void fourMillionTxidsTakeAtMostSixBytesEachAndAllReadBack() throws Exception {
    int n = 4 << 20;
    PositionPacking mainnet = new PositionPacking(13, 27);
    SplittableRandom rnd = new SplittableRandom(26);
    List<byte[]> txids = new ArrayList<>(n);
    long[] values = new long[n];
    for (int i = 0; i < n; i++) {
      byte[] t = new byte[32];
      for (int j = 0; j < 32; j += 8) {
        long r = rnd.nextLong();
        for (int k = 0; k < 8; k++) {
          t[j + k] = (byte) (r >>> (8 * k));
        }
      }
      txids.add(t);
      values[i] = mainnet.pack(rnd.nextInt(5_000), rnd.nextLong(1L << 27));
    }
    Path file = tmp.resolve("scale.own");
    long start = System.nanoTime();
    OwnIndexFiles.write(file, txids, values, mainnet, 2, new byte[32], new byte[32], 0);
    double seconds = (System.nanoTime() - start) / 1e9;
    double perTxid = (double) Files.size(file) / n;
    System.out.printf(
        "own_index_bytes_per_txid=%.3f keys=%d build_keys_per_s=%.0f (one thread)%n",
        perTxid, n, n / seconds);
    assertTrue(perTxid <= 6.0, perTxid + " bytes a txid");
    try (OwnIndexFile f = OwnIndexFile.open(file)) {
      for (int i = 0; i < n; i += 97) {
        assertEquals(values[i], f.value(txids.get(i), 0));
      }
    }
  }
}
