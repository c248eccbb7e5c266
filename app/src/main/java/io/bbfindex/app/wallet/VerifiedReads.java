package io.bbfindex.app.wallet;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.BlockData;
import io.bbfindex.app.lookup.ChainStatus;
import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlockFileReader.RawTransaction;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.HashKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Block;
import org.bitcoinj.core.Transaction;

/**
 * Transactions and blocks read at the index's locations and checked before anyone sees them: a
 * transaction's bytes are parsed again and their txid (SHA-256d of the non-witness serialization,
 * bitcoinj) compared with the one asked for; a block's header must hash to the block's hash and its
 * txids must recompute the header's merkle root. Any mismatch is a {@code store_inconsistent}
 * refusal (see {@link StoreChecks}), never wrong bytes.
 *
 * <p>Merkle proofs come from a bounded cache of verified txid lists ({@link VerifiedTxids}, keyed
 * by block hash, weighed by txids held): the first proof in a block reads and parses the whole
 * block (a block of 150,000 transactions takes a noticeable fraction of a second), later ones in
 * the same block only read a branch off the kept tree.
 */
public final class VerifiedReads {
  /** Txids held by the proof cache by default: about 64 bytes each, so some 32 MB. */
  public static final long DEFAULT_CACHED_TXIDS = 500_000;

  public static final String BLOCK_READS = "bbf.wallet.block.reads";

  private final LookupService lookups;
  private final StoreChecks checks;
  private final Counter blockReads;
  private final Cache<Sha256Hash, VerifiedTxids> txids;

  public VerifiedReads(LookupService lookups, StoreChecks checks, MeterRegistry registry) {
    this(lookups, checks, registry, DEFAULT_CACHED_TXIDS);
  }

  /**
   * @param maxCachedTxids how many txids (over all cached blocks) the proof cache may hold; a block
   *     larger than that is never kept
   */
  public VerifiedReads(
      LookupService lookups, StoreChecks checks, MeterRegistry registry, long maxCachedTxids) {
    this.lookups = Objects.requireNonNull(lookups, "lookups");
    this.checks = Objects.requireNonNull(checks, "checks");
    this.blockReads =
        Counter.builder(BLOCK_READS)
            .description("Whole blocks read from block files for the wallet and esplora routes")
            .register(registry);
    this.txids =
        Caffeine.newBuilder()
            .maximumWeight(maxCachedTxids)
            .<Sha256Hash, VerifiedTxids>weigher((k, v) -> v.tree().leafCount())
            .recordStats()
            .build();
    CaffeineCacheMetrics.monitor(registry, txids, "merkle_txids");
  }

  public LookupService lookups() {
    return lookups;
  }

  /** Parses a displayed txid (64 hex characters) into internal order, or refuses it (400). */
  public static byte[] parseTxid(String text) {
    return parseHash(text, "malformed_txid", "txid");
  }

  /** Parses a displayed block hash, or refuses it (400). */
  public static byte[] parseBlockHash(String text) {
    return parseHash(text, "malformed_hash", "block hash");
  }

  private static byte[] parseHash(String text, String code, String what) {
    byte[] key = new byte[HashKeys.KEY_BYTES];
    String problem = HashKeys.parseDisplayHex(text, 0, text.length(), key, 0);
    if (problem != null) {
      throw WalletException.badRequest(code, what + " must be 64 hex characters: " + problem);
    }
    return key;
  }

  /** Where the index puts the txid (internal order), or a 404 refusal. */
  public TxAnswer locate(byte[] txid) {
    return lookups
        .tx(txid)
        .orElseThrow(
            () ->
                WalletException.notFound(
                    "tx_not_found", "no transaction " + HashKeys.toDisplayHex(txid)));
  }

  /**
   * The stored, re-hashed transaction {@code txid} (internal order).
   *
   * @throws WalletException 404 when unknown or in the mempool (no block holds its bytes), 500
   *     {@code store_inconsistent} when the stored bytes do not hash to it
   */
  public StoredTx tx(byte[] txid) {
    return tx(txid, locate(txid));
  }

  /**
   * Why a transaction in a block has no bytes to serve: the block was followed after the snapshot
   * (no position in a blk file is known for it), and is either on the active chain or stale.
   */
  private static String unlocated(byte[] txid, TxAnswer at) {
    return "transaction "
        + HashKeys.toDisplayHex(txid)
        + (at.status() == ChainStatus.STALE ? " is only in stale block " : " is in block ")
        + HashKeys.toDisplayHex(at.blockHash())
        + " (height "
        + at.height()
        + "), which the server followed after its snapshot and holds no file position of;"
        + " bbf-index serves the bytes of transactions whose block it located";
  }

  /** As {@link #tx(byte[])} for a transaction already located at {@code at}. */
  public StoredTx tx(byte[] txid, TxAnswer at) {
    if (at.status() == ChainStatus.MEMPOOL) {
      throw WalletException.notFound(
          "not_in_a_block",
          "transaction "
              + HashKeys.toDisplayHex(txid)
              + " is in the mempool: bbf-index serves the bytes of transactions in blocks only");
    }
    if (!at.hasLocation()) {
      throw WalletException.notFound("not_located", unlocated(txid, at));
    }
    RawTransaction raw;
    try {
      raw = data().rawTransaction(at);
    } catch (CorruptRecordException e) {
      throw checks.inconsistent(e.getMessage());
    } catch (IOException e) {
      throw unreadable(e);
    }
    Transaction reparsed;
    try {
      reparsed = Transaction.read(ByteBuffer.wrap(raw.bytes()));
    } catch (RuntimeException e) {
      throw checks.inconsistent(
          raw.where() + " tx offset " + at.txOffset() + ": unparseable: " + e);
    }
    byte[] hashed = reparsed.getTxId().getReversedBytes();
    if (!Arrays.equals(hashed, txid)) {
      throw checks.inconsistent(
          raw.where()
              + " tx offset "
              + at.txOffset()
              + ": the bytes there hash to "
              + HashKeys.toDisplayHex(hashed)
              + ", not to the txid asked for "
              + HashKeys.toDisplayHex(txid));
    }
    return new StoredTx(at, raw.bytes(), reparsed);
  }

  /** The block with this hash (internal order), or a 404 refusal. */
  public BlockAnswer blockByHash(byte[] hash) {
    return lookups
        .block(hash)
        .orElseThrow(
            () ->
                WalletException.notFound(
                    "block_not_found", "no block " + HashKeys.toDisplayHex(hash)));
  }

  /** The active chain's block at {@code height}, if any. */
  public Optional<BlockAnswer> blockAt(int height) {
    return data().activeBlockAt(height);
  }

  /** The active chain's tip. */
  public BlockAnswer tip() {
    int tip = lookups.backend().tipHeight();
    return blockAt(tip)
        .orElseThrow(() -> new IllegalStateException("no active block at the tip height " + tip));
  }

  /**
   * The stored block, with its header hashed and its merkle root recomputed from its transactions.
   */
  public StoredBlock block(BlockAnswer answer) {
    blockReads.increment();
    byte[] bytes;
    try {
      bytes = data().rawBlock(answer);
    } catch (CorruptRecordException e) {
      throw checks.inconsistent(e.getMessage());
    } catch (IOException e) {
      throw unreadable(e);
    }
    String where =
        "block "
            + HashKeys.toDisplayHex(answer.hash())
            + " in "
            + blkName(answer.file())
            + " at "
            + answer.dataPos();
    byte[] headerHash = Sha256Hash.hashTwice(bytes, 0, BlockFileReader.HEADER_BYTES);
    if (!Arrays.equals(headerHash, answer.hash())) {
      throw checks.inconsistent(
          where + ": the header there hashes to " + HashKeys.toDisplayHex(headerHash));
    }
    Block block;
    try {
      block = Block.read(ByteBuffer.wrap(bytes));
    } catch (RuntimeException e) {
      throw checks.inconsistent(where + ": unparseable block: " + e);
    }
    List<Sha256Hash> txids = block.getTransactions().stream().map(Transaction::getTxId).toList();
    MerkleTree tree = txids.isEmpty() ? null : MerkleTree.of(txids);
    Sha256Hash root = tree == null ? Sha256Hash.ZERO_HASH : tree.root();
    if (!root.equals(block.getMerkleRoot())) {
      throw checks.inconsistent(
          where
              + ": its transactions' merkle root is "
              + root
              + ", the header says "
              + block.getMerkleRoot());
    }
    return new StoredBlock(answer, bytes, block, txids, tree);
  }

  /**
   * The verified txids of {@code answer}'s block: from the cache, else read and checked by {@link
   * #block} (a block that fails the checks is refused and not cached).
   */
  public VerifiedTxids txids(BlockAnswer answer) {
    return txids.get(
        Sha256Hash.wrapReversed(answer.hash()),
        k -> {
          StoredBlock b = block(answer);
          if (b.tree() == null) {
            throw checks.inconsistent(
                "block " + HashKeys.toDisplayHex(answer.hash()) + " holds no transactions");
          }
          return new VerifiedTxids(
              answer, Arrays.copyOf(b.bytes(), BlockFileReader.HEADER_BYTES), b.tree());
        });
  }

  /**
   * Where {@code txid} (internal order) sits in {@code block}; a 500 {@code store_inconsistent}
   * when the index put it in a block that does not hold it.
   */
  public int position(VerifiedTxids block, byte[] txid) {
    int pos = block.tree().position(txid);
    if (pos < 0) {
      throw checks.inconsistent(
          "the index puts transaction "
              + HashKeys.toDisplayHex(txid)
              + " in block "
              + HashKeys.toDisplayHex(block.answer().hash())
              + " ("
              + blkName(block.answer().file())
              + " at "
              + block.answer().dataPos()
              + "), whose transactions do not include it");
    }
    return pos;
  }

  private static String blkName(int file) {
    return String.format(java.util.Locale.ROOT, "blk%05d.dat", file);
  }

  private BlockData data() {
    return lookups
        .backend()
        .blockData()
        .orElseThrow(
            () ->
                WalletException.notFound(
                    "no_block_data",
                    "this server reads no block files (no Bitcoin data directory)"));
  }

  private static WalletException unreadable(IOException e) {
    return WalletException.causedBy(500, "block_data_unreadable", "reading block data failed", e);
  }
}
