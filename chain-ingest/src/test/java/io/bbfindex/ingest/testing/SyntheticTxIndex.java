package io.bbfindex.ingest.testing;

import static org.fusesource.leveldbjni.JniDBFactory.factory;

import io.bbfindex.ingest.encoding.CoreVarInt;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.TxRecordConsumer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.SplittableRandom;
import org.bitcoinj.base.VarInt;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteBatch;

/**
 * Writes a synthetic txindex, for tests and benchmarks (never the product): a LevelDB in Bitcoin
 * Core's exact txindex format ({@code indexes/txindex} of Core >= 0.17), written with leveldbjni.
 *
 * <ul>
 *   <li>{@code 't' + txid(32)} -> VARINT nFile, VARINT nPos, VARINT nTxOffset ({@link CoreVarInt},
 *       Core's MSB base-128 encoding), txids drawn from a seeded {@link SplittableRandom};
 *   <li>{@code 'B'} -> CBlockLocator: int32 LE version, CompactSize count, 32-byte hashes (the
 *       first is the synthetic tip);
 *   <li>optionally the {@code 0e 00 "obfuscate_key"} record with an 8-byte key, in which case every
 *       value is XORed with it as CDBWrapper does (Core's indexes have none; chainstate has one);
 *   <li>table files renamed from leveldbjni's {@code .sst} to Core's {@code .ldb} after closing, so
 *       the reader's snapshot path (.ldb linked as .sst) is exercised as on a real node.
 * </ul>
 *
 * <p>Positions follow mainnet's shape: blocks are laid out in blk files of at most 128 MiB (nPos of
 * the first block is 8, after magic + size), a block holds about {@code txPerBlock} transactions
 * (uniform in [1, 2 * txPerBlock)), a transaction 150..1,149 bytes, and nTxOffset starts after the
 * tx-count CompactSize. Each file's row count is saved beside the index in {@value #INFO_FILE} (the
 * benchmark sizes its filters from it, as the builder does from the block index).
 */
public final class SyntheticTxIndex {

  public static final String INFO_FILE = "synthetic-txindex.properties";
  private static final long MAX_BLK_FILE = 128L << 20;
  private static final int BATCH = 10_000;

  /** Core's serialization version written into the locator (CLIENT_VERSION of 0.21.1). */
  private static final int LOCATOR_VERSION = 210100;

  /**
   * What was written.
   *
   * @param perFile rows per blk file number (index = file)
   */
  public record Result(Path txindexDir, long records, long[] perFile, byte[] tip, long seed) {}

  private SyntheticTxIndex() {}

  /**
   * What to generate.
   *
   * @param txPerBlock mean transactions per block (mainnet today: about 2,000-3,000)
   * @param maxBlkFileBytes Core's MAX_BLOCKFILE_SIZE (128 MiB); smaller spreads few rows over many
   *     files
   * @param obfuscationKey 8 bytes, or null for none (Core's indexes have none)
   */
  public record Params(
      long records, int txPerBlock, long maxBlkFileBytes, long seed, byte[] obfuscationKey) {
    public Params {
      if (records < 1) {
        throw new IllegalArgumentException("records must be >= 1: " + records);
      }
      if (txPerBlock < 1) {
        throw new IllegalArgumentException("txPerBlock must be >= 1: " + txPerBlock);
      }
      if (maxBlkFileBytes < 1 << 16) {
        throw new IllegalArgumentException("maxBlkFileBytes must be >= 64 KiB: " + maxBlkFileBytes);
      }
      if (obfuscationKey != null && obfuscationKey.length != 8) {
        throw new IllegalArgumentException(
            "obfuscation key must be 8 bytes: " + obfuscationKey.length);
      }
    }

    /** Mainnet's shape: 2,500 tx per block, 128 MiB files, no obfuscation. */
    public static Params mainnetLike(long records, long seed) {
      return new Params(records, 2_500, MAX_BLK_FILE, seed, null);
    }
  }

  /**
   * Writes the rows of {@code p} into the new directory {@code datadir/indexes/txindex}, handing
   * every row written to {@code written} (may be null; its txid array is reused) so tests can check
   * the read-back.
   *
   * @throws IOException if the directory exists and is not empty, or writing fails
   */
  public static Result generate(Path datadir, Params p, TxRecordConsumer written)
      throws IOException {
    long records = p.records();
    byte[] obfuscationKey = p.obfuscationKey();
    long seed = p.seed();
    Path dir = datadir.resolve("indexes").resolve("txindex");
    if (Files.isDirectory(dir)) {
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
        if (s.iterator().hasNext()) {
          throw new IOException(dir + " is not empty; the generator only writes a new txindex");
        }
      }
    }
    Files.createDirectories(dir);
    SplittableRandom rnd = new SplittableRandom(seed);
    Options options =
        new Options()
            .createIfMissing(true)
            .errorIfExists(true)
            .compressionType(CompressionType.NONE)
            .writeBufferSize(64 << 20)
            .blockSize(4096);
    List<Long> perFile = new ArrayList<>();
    byte[] tip = new byte[32];
    try (DB db = factory.open(dir.toFile(), options)) {
      if (obfuscationKey != null) {
        byte[] v = new byte[9];
        v[0] = 8;
        System.arraycopy(obfuscationKey, 0, v, 1, 8);
        db.put(DbKeys.OBFUSCATE_KEY, v);
      }
      Layout layout = new Layout(rnd, p.txPerBlock(), p.maxBlkFileBytes());
      WriteBatch batch = db.createWriteBatch();
      int inBatch = 0;
      byte[] key = new byte[33];
      key[0] = DbKeys.TX_INDEX;
      byte[] txid = new byte[32];
      for (long i = 0; i < records; i++) {
        layout.next();
        while (perFile.size() <= layout.file) {
          perFile.add(0L);
        }
        perFile.set(layout.file, perFile.get(layout.file) + 1);
        randomBytes(rnd, txid);
        System.arraycopy(txid, 0, key, 1, 32);
        batch.put(
            key.clone(),
            obfuscate(value(layout.file, layout.blockPos, layout.txOffset), obfuscationKey));
        if (written != null) {
          written.accept(txid, layout.file, layout.blockPos, layout.txOffset);
        }
        if (++inBatch == BATCH) {
          db.write(batch);
          batch.close();
          batch = db.createWriteBatch();
          inBatch = 0;
        }
      }
      randomBytes(rnd, tip);
      batch.put(new byte[] {DbKeys.BEST_BLOCK}, obfuscate(locator(tip, rnd), obfuscationKey));
      db.write(batch);
      batch.close();
    }
    renameTablesToLdb(dir);
    long[] counts = perFile.stream().mapToLong(Long::longValue).toArray();
    writeInfo(datadir, records, counts, seed);
    return new Result(dir, records, counts, tip, seed);
  }

  /** Core's CDiskTxPos value: three VARINTs. */
  static byte[] value(int file, long pos, long txOffset) {
    byte[] a = CoreVarInt.encode(file);
    byte[] b = CoreVarInt.encode(pos);
    byte[] c = CoreVarInt.encode(txOffset);
    byte[] v = new byte[a.length + b.length + c.length];
    System.arraycopy(a, 0, v, 0, a.length);
    System.arraycopy(b, 0, v, a.length, b.length);
    System.arraycopy(c, 0, v, a.length + b.length, c.length);
    return v;
  }

  private static byte[] locator(byte[] tip, SplittableRandom rnd) {
    int n = 20;
    byte[] v = new byte[4 + 1 + 32 * n];
    v[0] = (byte) LOCATOR_VERSION;
    v[1] = (byte) (LOCATOR_VERSION >>> 8);
    v[2] = (byte) (LOCATOR_VERSION >>> 16);
    v[3] = (byte) (LOCATOR_VERSION >>> 24);
    v[4] = (byte) n;
    System.arraycopy(tip, 0, v, 5, 32);
    byte[] h = new byte[32];
    for (int i = 1; i < n; i++) {
      randomBytes(rnd, h);
      System.arraycopy(h, 0, v, 5 + 32 * i, 32);
    }
    return v;
  }

  private static byte[] obfuscate(byte[] v, byte[] key) {
    if (key != null) {
      for (int i = 0; i < v.length; i++) {
        v[i] ^= key[i % 8];
      }
    }
    return v;
  }

  private static void randomBytes(SplittableRandom rnd, byte[] out) {
    for (int i = 0; i < out.length; i += 8) {
      long r = rnd.nextLong();
      for (int j = 0; j < 8 && i + j < out.length; j++) {
        out[i + j] = (byte) (r >>> (8 * j));
      }
    }
  }

  private static void renameTablesToLdb(Path dir) throws IOException {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.sst")) {
      for (Path p : s) {
        String name = p.getFileName().toString();
        Files.move(p, dir.resolve(name.substring(0, name.length() - 4) + ".ldb"));
      }
    }
  }

  private static void writeInfo(Path datadir, long records, long[] perFile, long seed)
      throws IOException {
    Properties p = new Properties();
    p.setProperty("records", Long.toString(records));
    p.setProperty("seed", Long.toString(seed));
    p.setProperty("files", Integer.toString(perFile.length));
    for (int f = 0; f < perFile.length; f++) {
      p.setProperty(String.format(Locale.ROOT, "file.%05d", f), Long.toString(perFile[f]));
    }
    try (var w = Files.newBufferedWriter(datadir.resolve(INFO_FILE), StandardCharsets.UTF_8)) {
      p.store(w, "synthetic txindex written by " + SyntheticTxIndex.class.getName());
    }
  }

  /**
   * Reads {@value #INFO_FILE} back: rows per file.
   *
   * @throws IOException if missing or malformed
   */
  public static long[] readPerFile(Path datadir) throws IOException {
    Path f = datadir.resolve(INFO_FILE);
    Properties p = new Properties();
    try (var r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    try {
      int files = Integer.parseInt(p.getProperty("files"));
      if (files < 0 || files > 1_000_000) {
        throw new IOException(f + ": files = " + files + " is out of range");
      }
      long[] out = new long[files];
      for (int i = 0; i < files; i++) {
        out[i] = Long.parseLong(p.getProperty(String.format(Locale.ROOT, "file.%05d", i)));
      }
      return out;
    } catch (NumberFormatException | NullPointerException e) {
      throw new IOException(f + ": malformed (" + e + ")", e);
    }
  }

  /** Walks block files, blocks and transactions in Core's layout. */
  private static final class Layout {
    private final SplittableRandom rnd;
    private final int txPerBlock;
    private final long maxFileBytes;
    int file = 0;
    long blockPos = 8;
    long txOffset;
    private long blockEnd = 8;
    private int txLeft = 0;
    private long blocks = 0;

    Layout(SplittableRandom rnd, int txPerBlock, long maxFileBytes) {
      this.rnd = rnd;
      this.txPerBlock = txPerBlock;
      this.maxFileBytes = maxFileBytes;
    }

    void next() {
      if (txLeft == 0) {
        startBlock();
      }
      txLeft--;
      long size = 150L + rnd.nextInt(1000);
      // txOffset points at this tx; the block's end grows by its size
      txOffset = blockEnd - blockPos - 80;
      blockEnd += size;
    }

    private void startBlock() {
      int txCount = 1 + rnd.nextInt(2 * txPerBlock - 1);
      if (blocks++ == 0) {
        blockPos = 8; // after the first block's magic + size
      } else {
        blockPos = blockEnd + 8;
        // Core starts a new file when the block would not fit (MAX_BLOCKFILE_SIZE)
        if (blockPos + 80 + 9 + 1150L * txCount > maxFileBytes) {
          file++;
          blockPos = 8;
        }
      }
      blockEnd = blockPos + 80 + VarInt.sizeOf(txCount);
      txLeft = txCount;
    }
  }
}
