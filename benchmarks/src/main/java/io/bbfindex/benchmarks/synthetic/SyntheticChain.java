package io.bbfindex.benchmarks.synthetic;

import static org.fusesource.leveldbjni.JniDBFactory.factory;

import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.chain.ChainWork;
import io.bbfindex.ingest.encoding.CoreVarInt;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.TxRecordConsumer;
import io.bbfindex.ingest.txindex.HashedKeys;
import io.bbfindex.ingest.txindex.SipHash13Uj;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.bitcoinj.base.Sha256Hash;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteBatch;
import org.jspecify.annotations.Nullable;

/**
 * Writes a synthetic chain as Bitcoin Core >= 28 stores it, for benchmarks (never the product):
 *
 * <ul>
 *   <li>{@code blocks/blkNNNNN.dat}: mainnet magic + size + block records, blocks of {@link
 *       SyntheticTransactions} (a segwit coinbase, then mainnet-shaped transactions) under headers
 *       that chain by hash and carry the real merkle root; a file is full at {@code
 *       maxBlkFileBytes} as Core's MAX_BLOCKFILE_SIZE makes it;
 *   <li>{@code blocks/xor.dat}: a random 8-byte key, every blk byte XORed with it by its position
 *       (Core >= 28's {@code -blocksxor} default);
 *   <li>optionally {@code blocks/index} ({@code 'b'} records: CDiskBlockIndex with HAVE_DATA) and a
 *       HASHED {@code indexes/txindex} in Core v32's format ({@code BITCOIN-FORMATS.md} §3.5):
 *       {@code 'x'} + salted SipHash-1-3-UJ 40-bit prefix + VARINT block seq + 3-byte offset from
 *       the header (empty values), {@code 's'} seq → hash, {@code 'h'} hash → seq, {@code
 *       next_block_seq}, {@code txid_hash_salt}, {@code best_block_v2}; both LevelDBs with Core's
 *       {@code .ldb} table names.
 * </ul>
 *
 * The block index is also returned in memory ({@link BlockInfo}s, as {@code NodeIndex} would load
 * it), so benchmarks can hand it to the product's readers without a chainstate.
 */
public final class SyntheticChain {

  public static final byte[] MAINNET_MAGIC = HexFormat.of().parseHex("f9beb4d9");
  private static final int HEADER = 80;
  private static final int BATCH = 10_000;

  /** Core's block index: a 2 MiB cache ({@code MAX_BLOCK_DB_CACHE}), a quarter of it to write. */
  private static final int BLOCK_INDEX_WRITE_BUFFER = 512 << 10;

  /** Core's txindex at the default -dbcache (450 MiB): an eighth as cache, a quarter to write. */
  private static final int TXINDEX_WRITE_BUFFER = (450 << 20) / 8 / 4;

  /** Core's CLIENT_VERSION written as the 'b' records' dummy version and the locator's version. */
  private static final int CLIENT_VERSION = 319900;

  /** Regtest's proof-of-work limit as compact bits: about half of all hashes meet it. */
  private static final int REGTEST_BITS = 0x207f_ffff;

  /**
   * What to generate; generation stops after the block that reaches {@code transactions} or {@code
   * blkBytes}, whichever comes first.
   *
   * @param txPerBlock mean transactions per block (uniform in [txPerBlock/2, 3*txPerBlock/2])
   * @param maxBlkFileBytes Core's MAX_BLOCKFILE_SIZE (128 MiB on mainnet)
   * @param indexes also write {@code blocks/index} and the hashed {@code indexes/txindex}
   * @param maxBlocks generation also stops at this many blocks
   * @param recordedTxPerBlock the nTx each {@code 'b'} record claims (0: the block's own count): a
   *     block index of mainnet's shape (about 1,474 a block) over small blocks, so the builder
   *     sizes the summary filter for mainnet's txid count while inserting only the blocks' own
   * @param mined headers at regtest's proof-of-work limit ({@code 0x207fffff}) with the nonce
   *     ground until the hash meets it (about two tries a block), so the product's {@code
   *     NodeIndex} accepts the block index (it checks every header's proof of work); otherwise
   *     mainnet-like bits that no synthetic hash meets
   * @param legacyRows the txindex as Core 0.17-31 writes it ({@code 't'} + txid to CDiskTxPos, the
   *     {@code 'B'} locator) instead of the hashed rows: the builder then takes the txids from the
   *     rows, not from the blk files, and does not hold a block's data to its recorded nTx
   */
  public record Params(
      long transactions,
      long blkBytes,
      int txPerBlock,
      long maxBlkFileBytes,
      long seed,
      boolean indexes,
      long maxBlocks,
      int recordedTxPerBlock,
      boolean mined,
      boolean legacyRows) {

    /** Without a block limit, with each block's own nTx, unmined headers. */
    public Params(
        long transactions,
        long blkBytes,
        int txPerBlock,
        long maxBlkFileBytes,
        long seed,
        boolean indexes) {
      this(
          transactions,
          blkBytes,
          txPerBlock,
          maxBlkFileBytes,
          seed,
          indexes,
          Long.MAX_VALUE,
          0,
          false,
          false);
    }

    public Params {
      if (transactions < 1 || blkBytes < 1 || txPerBlock < 2 || maxBlkFileBytes < 1 << 16) {
        throw new IllegalArgumentException(
            "transactions, blkBytes >= 1, txPerBlock >= 2, maxBlkFileBytes >= 64 KiB: "
                + transactions
                + ", "
                + blkBytes
                + ", "
                + txPerBlock
                + ", "
                + maxBlkFileBytes);
      }
    }
  }

  /**
   * What was written.
   *
   * @param blocks the block index, in height order (all on the active chain)
   * @param blkBytes bytes of the blk files written
   * @param txPerFile transactions per blk file number
   * @param salt the hashed txindex's salt (null without indexes)
   */
  public record Result(
      Path datadir,
      List<BlockInfo> blocks,
      BlocksXorKey xor,
      long transactions,
      long blkBytes,
      long[] txPerFile,
      @Nullable SipHash13Uj salt) {
    public Path blocksDir() {
      return datadir.resolve("blocks");
    }

    public Path txindexDir() {
      return datadir.resolve("indexes").resolve("txindex");
    }

    public Path blockIndexDir() {
      return blocksDir().resolve("index");
    }
  }

  private SyntheticChain() {}

  /**
   * Writes the chain of {@code p} into {@code datadir} (which must not hold a {@code blocks}
   * directory), handing every transaction to {@code written} (may be null; txid in internal order,
   * array reused; txOffset after the header, as in a legacy {@code 't'} row).
   *
   * @throws IOException if writing fails or {@code datadir/blocks} exists
   */
  public static Result generate(Path datadir, Params p, @Nullable TxRecordConsumer written)
      throws IOException {
    Path blocksDir = datadir.resolve("blocks");
    if (Files.exists(blocksDir)) {
      throw new IOException(blocksDir + " exists; the generator only writes a new chain");
    }
    Files.createDirectories(blocksDir);
    SplittableRandom rnd = new SplittableRandom(p.seed());
    byte[] key = new byte[8];
    for (int i = 0; i < 8; i++) {
      key[i] = (byte) (1 + rnd.nextInt(255)); // non-zero bytes: a zero key means no XOR
    }
    Files.write(blocksDir.resolve(BlocksXorKey.FILE_NAME), key);
    BlocksXorKey xor = BlocksXorKey.of(key);
    SipHash13Uj salt = p.indexes() ? new SipHash13Uj(rnd.nextLong(), rnd.nextLong()) : null;
    try (Writer w = new Writer(datadir, p, rnd, xor, salt, written)) {
      while (w.transactions < p.transactions()
          && w.blkBytes < p.blkBytes()
          && w.blocks.size() < p.maxBlocks()) {
        int count = p.txPerBlock() / 2 + rnd.nextInt(p.txPerBlock() + 1);
        w.block((int) Math.min(count, Math.max(1, p.transactions() - w.transactions)));
      }
      return w.finish();
    }
  }

  /** The block-by-block writer: blk files, then (optionally) the two LevelDBs. */
  // NullAway: with p.indexes() the hashed txindex, the block index, their write batch and the salt
  // are all set in the constructor, without it all null; every use is behind a txindex != null
  // check (the batch is null again only after the last write, in finish), and blk is opened before
  // the first block is written.
  @SuppressWarnings("NullAway")
  private static final class Writer implements AutoCloseable {
    private final Path datadir;
    private final Params p;
    private final SplittableRandom rnd;
    private final BlocksXorKey xor;
    private final @Nullable SipHash13Uj salt;
    private final @Nullable TxRecordConsumer written;
    private final SyntheticTransactions txs;
    private final MessageDigest sha256;
    private final List<BlockInfo> blocks = new ArrayList<>();
    private final List<Long> txPerFile = new ArrayList<>();
    private final byte[] txid = new byte[32];
    private @Nullable DB txindex;
    private @Nullable DB blockIndex;
    private @Nullable WriteBatch batch;
    private int inBatch;
    private FileChannel blk;
    private int file = -1;
    private long filePos;
    private byte[] prev = new byte[32];
    private byte[] txids = new byte[32 * 4096];
    long transactions;
    long blkBytes;

    Writer(
        Path datadir,
        Params p,
        SplittableRandom rnd,
        BlocksXorKey xor,
        @Nullable SipHash13Uj salt,
        @Nullable TxRecordConsumer written)
        throws IOException {
      this.datadir = datadir;
      this.p = p;
      this.rnd = rnd;
      this.xor = xor;
      this.salt = salt;
      this.written = written;
      this.txs = new SyntheticTransactions(rnd.nextLong());
      try {
        this.sha256 = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new AssertionError("every JDK has SHA-256", e);
      }
      if (p.indexes()) {
        Path tx = datadir.resolve("indexes").resolve("txindex");
        Files.createDirectories(tx);
        txindex = factory.open(tx.toFile(), coreOptions(TXINDEX_WRITE_BUFFER));
        blockIndex =
            factory.open(
                datadir.resolve("blocks").resolve("index").toFile(),
                coreOptions(BLOCK_INDEX_WRITE_BUFFER));
        batch = txindex.createWriteBatch();
      }
    }

    /**
     * Bitcoin Core's LevelDB settings ({@code CDBWrapper}): no compression, 4 KiB blocks, and a
     * write buffer of a quarter of the database's cache. The write buffer decides how much a
     * stopped node leaves in the log, which every open replays: Core's block index has a 2 MiB
     * cache (512 KiB of log at most), its txindex one eighth of the default 450 MiB -dbcache (14
     * MiB).
     */
    private static Options coreOptions(int writeBufferBytes) {
      return new Options()
          .createIfMissing(true)
          .errorIfExists(true)
          .compressionType(CompressionType.NONE)
          .writeBufferSize(writeBufferBytes)
          .blockSize(4096);
    }

    void block(int count) throws IOException {
      int height = blocks.size();
      int[] offsets = serialize(height, count);
      byte[] b = txs.buffer();
      int size = txs.length() - 8;
      // header: version, prev hash, merkle root, time, bits, nonce
      ByteBuffer h = ByteBuffer.wrap(b, 8, HEADER).order(ByteOrder.LITTLE_ENDIAN);
      h.putInt(0x2000_0000)
          .put(prev)
          .put(merkleRoot(txids, count))
          .putInt(1_700_000_000 + 600 * height)
          .putInt(p.mined() ? REGTEST_BITS : 0x1703_4219)
          .putInt(rnd.nextInt());
      byte[] header = java.util.Arrays.copyOfRange(b, 8, 8 + HEADER);
      byte[] hash = Sha256Hash.hashTwice(header);
      while (p.mined() && !ChainWork.meetsTarget(hash, REGTEST_BITS)) {
        header[76]++; // the nonce's low byte: a new hash, about one in two meets the limit
        hash = Sha256Hash.hashTwice(header);
      }
      System.arraycopy(header, 0, b, 8, HEADER);
      System.arraycopy(MAINNET_MAGIC, 0, b, 0, 4);
      ByteBuffer.wrap(b, 4, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(size);

      if (blk == null || (filePos > 0 && filePos + 8 + size > p.maxBlkFileBytes())) {
        nextFile();
      }
      long dataPos = filePos + 8;
      xor.apply(b, 0, size + 8, filePos);
      ByteBuffer out = ByteBuffer.wrap(b, 0, size + 8);
      while (out.hasRemaining()) {
        blk.write(out);
      }
      filePos += size + 8;
      blkBytes += size + 8;
      txPerFile.set(file, txPerFile.get(file) + count);
      transactions += count;
      BlockInfo info =
          new BlockInfo(
              hash,
              height,
              BlockStatus.VALID_SCRIPTS | BlockStatus.HAVE_DATA,
              count,
              file,
              dataPos,
              -1,
              header,
              true,
              0);
      blocks.add(info);
      index(info, offsets);
      prev = hash;
    }

    /**
     * The block's transactions after room for the magic, size and header, into {@code txs}; their
     * txids into {@code txids}; each one's offset after the header.
     */
    private int[] serialize(int height, int count) {
      txs.reset(0);
      txs.put(new byte[8 + HEADER], 0, 8 + HEADER);
      txs.compactSize(count);
      if (txids.length < 32 * count) {
        txids = new byte[32 * count];
      }
      int[] offsets = new int[count];
      for (int i = 0; i < count; i++) {
        offsets[i] = txs.length() - 8 - HEADER;
        if (i == 0) {
          txs.coinbase(height, txids, 0);
        } else {
          txs.transaction(txids, 32 * i);
        }
      }
      return offsets;
    }

    /** Each txid of the block to the consumer and, with the LevelDBs, its rows and the block's. */
    private void index(BlockInfo block, int[] offsets) throws IOException {
      int height = block.height();
      int count = block.txCount();
      long dataPos = block.dataPos();
      byte[] hash = block.hash();
      for (int i = 0; i < count; i++) {
        System.arraycopy(txids, 32 * i, txid, 0, 32);
        if (written != null) {
          written.accept(txid, file, dataPos, offsets[i]);
        }
        if (txindex != null && p.legacyRows()) {
          put(
              DbKeys.txKey(txid),
              concat(
                  CoreVarInt.encode(file),
                  CoreVarInt.encode(dataPos),
                  CoreVarInt.encode(offsets[i])));
        } else if (txindex != null) {
          put(
              HashedKeys.txRowKey(salt.prefix40(txid, 0), height, HEADER + offsets[i]),
              new byte[0]);
        }
      }
      if (txindex != null && !p.legacyRows()) {
        put(HashedKeys.seqKey(height), hash);
        put(concat(new byte[] {'h'}, hash), le32(height));
      }
      if (txindex != null) {
        blockIndex.put(
            DbKeys.blockKey(hash),
            blockRecord(
                height,
                p.recordedTxPerBlock() > 0 ? p.recordedTxPerBlock() : count,
                file,
                dataPos,
                block.header()));
      }
    }

    private void nextFile() throws IOException {
      if (blk != null) {
        blk.close();
      }
      file++;
      txPerFile.add(0L);
      filePos = 0;
      blk =
          FileChannel.open(
              datadir.resolve("blocks").resolve(String.format(Locale.ROOT, "blk%05d.dat", file)),
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE);
    }

    private byte[] merkleRoot(byte[] leaves, int count) {
      byte[] level = java.util.Arrays.copyOf(leaves, 32 * count);
      int n = count;
      try {
        while (n > 1) {
          int next = (n + 1) / 2;
          for (int i = 0; i < next; i++) {
            int right = 2 * i + 1 < n ? 2 * i + 1 : 2 * i; // Core duplicates an odd last hash
            sha256.update(level, 64 * i, 32);
            sha256.update(level, 32 * right, 32);
            byte[] once = sha256.digest();
            sha256.update(once);
            sha256.digest(level, 32 * i, 32);
          }
          n = next;
        }
      } catch (DigestException e) {
        throw new AssertionError("a 32-byte buffer always fits SHA-256", e);
      }
      return java.util.Arrays.copyOf(level, 32);
    }

    /** CDiskBlockIndex: VARINT version, height, status, nTx, nFile, nDataPos; then the header. */
    private static byte[] blockRecord(
        int height, int count, int file, long dataPos, byte[] header) {
      byte[] v =
          concat(
              CoreVarInt.encode(CLIENT_VERSION),
              CoreVarInt.encode(height),
              CoreVarInt.encode(BlockStatus.VALID_SCRIPTS | BlockStatus.HAVE_DATA),
              CoreVarInt.encode(count),
              CoreVarInt.encode(file),
              CoreVarInt.encode(dataPos));
      return concat(v, header);
    }

    private void put(byte[] k, byte[] v) {
      batch.put(k, v);
      if (++inBatch == BATCH) {
        txindex.write(batch);
        try {
          batch.close();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
        batch = txindex.createWriteBatch();
        inBatch = 0;
      }
    }

    Result finish() throws IOException {
      if (txindex != null && p.legacyRows()) {
        byte[] tip = blocks.getLast().hash();
        put(new byte[] {DbKeys.BEST_BLOCK}, concat(le32(CLIENT_VERSION), new byte[] {1}, tip));
        txindex.write(batch);
        batch.close();
        batch = null;
      } else if (txindex != null) {
        put(
            HashedKeys.SALT,
            ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(salt.k0())
                .putLong(salt.k1())
                .array());
        put(DbKeys.stringKey("next_block_seq"), le32(blocks.size()));
        byte[] tip = blocks.getLast().hash();
        put(HashedKeys.BEST_BLOCK_V2, concat(le32(CLIENT_VERSION), new byte[] {1}, tip));
        txindex.write(batch);
        batch.close();
        batch = null;
      }
      long[] perFile = txPerFile.stream().mapToLong(Long::longValue).toArray();
      int tip = blocks.size() - 1;
      List<BlockInfo> withConfirmations = new ArrayList<>(blocks.size());
      for (BlockInfo b : blocks) {
        withConfirmations.add(
            new BlockInfo(
                b.hash(),
                b.height(),
                b.status(),
                b.txCount(),
                b.file(),
                b.dataPos(),
                b.undoPos(),
                b.header(),
                true,
                tip - b.height() + 1));
      }
      return new Result(
          datadir, List.copyOf(withConfirmations), xor, transactions, blkBytes, perFile, salt);
    }

    @Override
    public void close() throws IOException {
      if (blk != null) {
        blk.close();
      }
      if (txindex != null) {
        if (batch != null) {
          batch.close();
        }
        txindex.close();
        blockIndex.close();
        renameTablesToLdb(datadir.resolve("indexes").resolve("txindex"));
        renameTablesToLdb(datadir.resolve("blocks").resolve("index"));
      }
    }
  }

  private static byte[] le32(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] a : parts) {
      n += a.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] a : parts) {
      System.arraycopy(a, 0, out, at, a.length);
      at += a.length;
    }
    return out;
  }

  /** leveldbjni writes .sst; Core's tables are .ldb (the product's snapshot links them back). */
  private static void renameTablesToLdb(Path dir) throws IOException {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.sst")) {
      for (Path f : s) {
        String name = f.getFileName().toString();
        Files.move(f, dir.resolve(name.substring(0, name.length() - 4) + ".ldb"));
      }
    }
  }
}
