package io.bbfindex.ingest;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import com.google.common.util.concurrent.Uninterruptibles;
import io.bbfindex.ingest.chain.ProofOfWorkCheck;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.LittleEndian;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.leveldb.Obfuscation;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Scans and decodes every {@code 'b'} record of a snapshot of Core's block index, in key order,
 * each header checked against its hash and its own proof-of-work target.
 */
final class BlockRecordScan {

  /** At most this many threads decode the block index. */
  static final int MAX_PARTS = 4;

  private BlockRecordScan() {}

  /**
   * The records, in key order. Hot path of a start without the {@link BlockIndexCache} (950,000
   * records on mainnet, each a SHA-256d of its header and a proof-of-work check): the key range is
   * split by the hash's first byte (uniformly random) into {@code parts}, each scanned by its own
   * LevelDB iterator on its own thread. The parts are concatenated in key order, and when several
   * fail the first one's failure is reported, so the result and the error are those of one
   * sequential scan.
   *
   * @param indexDir the node's {@code blocks/index}, named in errors
   */
  static List<DiskBlockIndex> read(LevelDbSnapshot db, Obfuscation obf, Path indexDir, int parts)
      throws IOException {
    List<List<DiskBlockIndex>> decoded = new ArrayList<>(parts);
    List<Thread> threads = new ArrayList<>(parts);
    Throwable[] failures = new Throwable[parts];
    for (int p = 0; p < parts; p++) {
      List<DiskBlockIndex> out = new ArrayList<>();
      decoded.add(out);
      byte[] from = p == 0 ? new byte[] {DbKeys.BLOCK_INDEX} : bound(p, parts);
      byte[] to = p == parts - 1 ? new byte[] {DbKeys.BLOCK_INDEX + 1} : bound(p + 1, parts);
      int part = p;
      Runnable scan =
          () -> {
            try {
              readPart(db, obf, indexDir, from, to, out);
            } catch (Throwable e) { // rethrown below on the calling thread, whatever it is
              failures[part] = e;
            }
          };
      if (p == parts - 1) {
        scan.run(); // the last part on the calling thread
      } else {
        Thread t = new Thread(scan, "bbf-block-index-scan-" + p);
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }
    // every part is waited for, even when interrupted: a failed open closes the LevelDB, which
    // must not happen under an iterator still running
    threads.forEach(Uninterruptibles::joinUninterruptibly);
    for (Throwable e : failures) {
      switch (e) {
        case null -> {}
        case IOException io -> throw io;
        case RuntimeException r -> throw r;
        case Error r -> throw r;
        default -> throw new IllegalStateException(e);
      }
    }
    int total = 0;
    for (List<DiskBlockIndex> d : decoded) {
      total += d.size();
    }
    List<DiskBlockIndex> all = new ArrayList<>(total);
    for (List<DiskBlockIndex> d : decoded) {
      all.addAll(d);
    }
    return all;
  }

  /** Where part {@code p} of {@code parts} starts: {@code 'b'} and the first byte of the hash. */
  private static byte[] bound(int p, int parts) {
    return new byte[] {DbKeys.BLOCK_INDEX, (byte) (p * 256 / parts)};
  }

  private static void readPart(
      LevelDbSnapshot db,
      Obfuscation obf,
      Path indexDir,
      byte[] from,
      byte[] toExclusive,
      List<DiskBlockIndex> out)
      throws IOException {
    // one per thread: it remembers the target of the last nBits (which changes every 2016 blocks)
    ProofOfWorkCheck pow = new ProofOfWorkCheck();
    db.scan(
        from,
        toExclusive,
        (k, v) -> {
          DiskBlockIndex b = decodeOrReport(indexDir, () -> DiskBlockIndex.decode(k, obf.plain(v)));
          if (!pow.meetsTarget(b.hash(), LittleEndian.uint32(b.header(), 72))) {
            throw new DataDirException(
                indexDir,
                "corrupt block index: block "
                    + toDisplayHex(b.hash())
                    + " does not meet its own proof-of-work target (CheckProofOfWork failed);"
                    + " restart bitcoind with -reindex to rebuild it");
          }
          out.add(b);
        });
  }

  /** Decodes one record of the block index. */
  interface Decoder<T> {
    T decode() throws CorruptRecordException;
  }

  /** {@code d}'s record, or the error that names {@code indexDir} and the fix. */
  static <T> T decodeOrReport(Path indexDir, Decoder<T> d) throws DataDirException {
    try {
      return d.decode();
    } catch (CorruptRecordException e) {
      throw new DataDirException(
          indexDir,
          "corrupt block index: "
              + e.getMessage()
              + "; restart bitcoind with -reindex to rebuild it",
          e);
    }
  }
}
