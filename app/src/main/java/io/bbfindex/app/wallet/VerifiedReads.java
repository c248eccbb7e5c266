package io.bbfindex.app.wallet;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.BlockData;
import io.bbfindex.app.lookup.ChainStatus;
import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.lookup.StoreInconsistentException;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlockFileReader.RawTransaction;
import io.bbfindex.ingest.blockfile.MerkleTree;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.HashKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Block;
import org.bitcoinj.core.Transaction;
import org.bitcoinj.core.TransactionOutPoint;
import org.bitcoinj.core.TransactionOutput;
import org.jspecify.annotations.Nullable;

/**
 * Transactions and blocks read at the index's locations and checked, every byte, against what
 * commits to it before anyone sees them. A transaction's bytes must parse (bitcoinj) and serialize
 * back to exactly themselves, so that the hashes below are hashes of the bytes served; their txid
 * (SHA-256d of the serialization without witness) must be the one asked for; and when they carry a
 * witness, their wtxid (SHA-256d of all of them) must be the one their block's witness commitment
 * holds at their position. A block's header must hash to the block's hash, its bytes must be its
 * transactions and nothing else, its txids must fold to the header's merkle root, and its wtxids to
 * the witness commitment of its coinbase (BIP 141), or, without one, none may carry a witness. Any
 * mismatch is a {@code store_inconsistent} refusal (see {@link StoreChecks}), never wrong bytes.
 *
 * <p>Merkle proofs and witness checks come from a bounded cache of verified txid and wtxid lists
 * ({@link VerifiedTxids}, keyed by block hash, weighed by txids held): the first proof (or the
 * first segwit transaction served) in a block reads and parses the whole block (a block of 150,000
 * transactions takes a noticeable fraction of a second), later ones in the same block only read a
 * branch off the kept tree, or compare one kept wtxid.
 */
public final class VerifiedReads {
  /**
   * Txids held by the proof cache by default: about 64 bytes each (the tree's levels), 96 in a
   * block with a witness commitment (its wtxids are kept too), so some 32 to 48 MB.
   */
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

  /**
   * Where the index puts the txid (internal order), or a 404 refusal; a 500 {@code
   * store_inconsistent} when the lookup itself met damaged data (a hashed txindex row whose block
   * bytes are not what the header commits to).
   */
  public TxAnswer locate(byte[] txid) {
    Optional<TxAnswer> found;
    try {
      found = lookups.tx(txid);
    } catch (StoreInconsistentException e) {
      throw StoreChecks.refusal(e);
    }
    return found.orElseThrow(
        () ->
            WalletException.notFound(
                "tx_not_found", "no transaction " + HashKeys.toDisplayHex(txid)));
  }

  /**
   * The stored, re-hashed transaction {@code txid} (internal order).
   *
   * @throws WalletException 404 when unknown or in the mempool (no block holds its bytes), 500
   *     {@code store_inconsistent} when the stored bytes do not hash to it or, carrying a witness,
   *     to the wtxid their block commits to
   */
  public StoredTx tx(byte[] txid) {
    return tx(txid, locate(txid));
  }

  /**
   * As {@link #tx(byte[])} for a transaction already located at {@code at}. A transaction with a
   * witness costs a read of its whole block the first time (its wtxid is checked against the
   * block's witness commitment, which covers every wtxid of the block); the block's checked wtxids
   * are then kept with its txids ({@link #txids}).
   */
  public StoredTx tx(byte[] txid, TxAnswer at) {
    StoredTx stored = txidChecked(txid, at);
    if (stored.tx().hasWitnesses()) {
      requireCommittedWitness(txid, stored);
    }
    return stored;
  }

  /**
   * The output that {@code outpoint} spends, read through the index: its transaction's stored bytes
   * checked against its txid, which covers every output. Its witness, which is not served, is not
   * checked (so no block is read for it).
   *
   * @return null when the index does not know the spent transaction, or its block was pruned
   */
  public @Nullable TransactionOutput spentOutput(TransactionOutPoint outpoint) {
    byte[] txid = outpoint.hash().getReversedBytes();
    StoredTx spent;
    try {
      spent = txidChecked(txid, locate(txid));
    } catch (WalletException e) {
      if (e.status() == 404 || e.status() == BlockPruned.STATUS) {
        return null; // unknown, or its bytes pruned: the output cannot be shown
      }
      throw e;
    }
    List<TransactionOutput> outputs = spent.tx().getOutputs();
    if (outpoint.index() >= outputs.size()) {
      throw checks.inconsistent(
          "an input spends output "
              + outpoint.index()
              + " of "
              + outpoint.hash()
              + " ("
              + where(spent.at())
              + "), which has "
              + outputs.size());
    }
    return outputs.get((int) outpoint.index());
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

  /**
   * The stored transaction at {@code at}, its bytes parsed, serialized back to themselves and
   * hashed to {@code txid}; its witness not checked yet.
   */
  private StoredTx txidChecked(byte[] txid, TxAnswer at) {
    if (at.status() == ChainStatus.MEMPOOL) {
      throw WalletException.notFound(
          "not_in_a_block",
          "transaction "
              + HashKeys.toDisplayHex(txid)
              + " is in the mempool: bbf-index serves the bytes of transactions in blocks only");
    }
    if (at.blockPruned()) {
      throw BlockPruned.of(at.blockHash(), at.height());
    }
    if (!at.hasLocation()) {
      throw WalletException.notFound("not_located", unlocated(txid, at));
    }
    RawTransaction raw;
    try {
      raw = data().rawTransaction(at);
    } catch (NoSuchFileException e) {
      throw BlockPruned.of(at.blockHash(), at.height(), e); // pruned under the running server
    } catch (CorruptRecordException e) {
      throw checks.inconsistent(e.getMessage());
    } catch (IOException e) {
      throw unreadable(e);
    }
    String where = raw.where() + " tx offset " + at.txOffset();
    Transaction reparsed;
    try {
      reparsed = Transaction.read(ByteBuffer.wrap(raw.bytes()));
    } catch (RuntimeException e) {
      throw checks.inconsistent(where + ": not a transaction (" + e.getMessage() + ")");
    }
    if (!Arrays.equals(reparsed.serialize(), raw.bytes())) {
      throw checks.inconsistent(
          where
              + ": the bytes there do not serialize back to themselves (a non-canonical encoding)");
    }
    byte[] hashed = reparsed.getTxId().getReversedBytes();
    if (!Arrays.equals(hashed, txid)) {
      throw checks.inconsistent(
          where
              + ": the bytes there hash to "
              + HashKeys.toDisplayHex(hashed)
              + ", not to the txid asked for "
              + HashKeys.toDisplayHex(txid));
    }
    return new StoredTx(at, raw.bytes(), reparsed);
  }

  /**
   * Checks the witness of {@code stored}: its wtxid must be the one its block's witness commitment
   * holds at the transaction's position.
   */
  private void requireCommittedWitness(byte[] txid, StoredTx stored) {
    TxAnswer at = stored.at();
    BlockAnswer b =
        lookups
            .backend()
            .lookupBlock(at.blockHash()) // not a lookup of the client's: not counted as one
            .orElseThrow(
                () ->
                    checks.inconsistent(
                        where(at)
                            + ": the index puts the transaction in block "
                            + HashKeys.toDisplayHex(at.blockHash())
                            + ", which the block index lacks"));
    VerifiedTxids block = txids(b);
    int pos = position(block, txid);
    byte[] committed = block.wtxid(pos);
    byte[] wtxid = stored.tx().getWTxId().getReversedBytes();
    if (committed == null) {
      throw checks.inconsistent(
          where(at) + ": the transaction carries a witness, but its block commits to none");
    }
    if (!Arrays.equals(wtxid, committed)) {
      throw checks.inconsistent(
          where(at)
              + ": the bytes there (witness included) hash to wtxid "
              + HashKeys.toDisplayHex(wtxid)
              + ", the block's witness commitment holds "
              + HashKeys.toDisplayHex(committed)
              + " at position "
              + pos);
    }
  }

  private static String where(TxAnswer at) {
    return blkName(at.file()) + " block at " + at.dataPos() + " tx offset " + at.txOffset();
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
   * The stored block, with its header hashed, its bytes serialized back from its parse, its merkle
   * root recomputed from its transactions and its witness commitment from their wtxids.
   */
  public StoredBlock block(BlockAnswer answer) {
    if (answer.file() < 0) {
      throw BlockPruned.of(answer.hash(), answer.height());
    }
    blockReads.increment();
    byte[] bytes;
    try {
      bytes = data().rawBlock(answer);
    } catch (NoSuchFileException e) {
      throw BlockPruned.of(answer.hash(), answer.height(), e); // pruned under the running server
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
      throw checks.inconsistent(where + ": not a block (" + e.getMessage() + ")");
    }
    if (!Arrays.equals(block.serialize(), bytes)) {
      throw checks.inconsistent(
          where
              + ": the stored record is not its transactions serialized (bytes left over, or a"
              + " non-canonical encoding)");
    }
    List<Transaction> transactions = block.getTransactions();
    if (transactions == null || transactions.isEmpty()) {
      throw checks.inconsistent(where + ": the stored record holds no transaction");
    }
    List<Sha256Hash> txids = transactions.stream().map(Transaction::getTxId).toList();
    MerkleTree tree = MerkleTree.of(txids);
    Sha256Hash root = tree.root();
    if (!root.equals(block.getMerkleRoot())) {
      throw checks.inconsistent(
          where
              + ": its transactions' merkle root is "
              + root
              + ", the header says "
              + block.getMerkleRoot());
    }
    return new StoredBlock(
        answer, bytes, block, txids, tree, WitnessCommitment.wtxids(block, where, checks));
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
              answer, Arrays.copyOf(b.bytes(), BlockFileReader.HEADER_BYTES), b.tree(), b.wtxids());
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
