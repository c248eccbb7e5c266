package io.bbfindex.ingest.ownindex;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's background check of an opened own index: a sound file is checked whole and kept; a
 * file with a damaged shard is named in the log with the shard and deleted, so that the next open
 * builds it again, while the mapping already open keeps answering from its sound shards.
 */
class OwnIndexStoreVerifyTest {

  @TempDir Path tmp;

  private final List<byte[]> txids = new ArrayList<>();
  private long[] values = new long[0];

  private Path write(String name) throws Exception {
    Random rnd = new Random(29);
    int n = 20_000;
    values = new long[n];
    PositionPacking p = new PositionPacking(13, 27);
    for (int i = 0; i < n; i++) {
      byte[] t = new byte[32];
      rnd.nextBytes(t);
      txids.add(t);
      values[i] = p.pack(rnd.nextInt(5000), rnd.nextInt(1 << 27));
    }
    Path file = tmp.resolve(name);
    OwnIndexFiles.write(file, txids, values, p, 3, new byte[32], new byte[32], 0);
    return file;
  }

  private static String verified(OwnIndexFile f) throws InterruptedException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream log = new PrintStream(out, true, StandardCharsets.UTF_8);
    OwnIndexStore.verifyInBackground(f, log).join(60_000);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aSoundFileIsCheckedWholeAndKept() throws Exception {
    Path file = write("sound.own");
    try (OwnIndexFile f = OwnIndexFile.open(file)) {
      String log = verified(f);
      assertTrue(log.contains("8 shards checked"), log);
      assertTrue(Files.exists(file));
    }
  }

  @Test
  void aDamagedShardIsNamedAndTheFileDeletedForARebuild() throws Exception {
    Path file = write("damaged.own");
    byte[] b = Files.readAllBytes(file);
    b[b.length - 3] ^= 0x10; // in the last shard (7)
    Files.write(file, b);
    try (OwnIndexFile f = OwnIndexFile.open(file)) {
      String log = verified(f);
      assertTrue(log.contains(file.toString()) && log.contains("shard 7 CRC32C"), log);
      assertTrue(log.contains("rebuilt at the next start"), log);
      assertFalse(Files.exists(file), "deleted so that the next open builds it again");
      for (int i = 0; i < txids.size(); i++) {
        if (TxidKeys.shard(TxidKeys.k0(txids.get(i), 0), 3) != 7) {
          assertTrue(values[i] == f.value(txids.get(i), 0), "key " + i);
        }
      }
    }
  }
}
