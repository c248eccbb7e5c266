package io.bbfindex.app.esplora;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainStatus;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.wallet.MerkleProof;
import io.bbfindex.app.wallet.Reply;
import io.bbfindex.app.wallet.StoredTx;
import io.bbfindex.app.wallet.VerifiedReads;
import io.bbfindex.app.wallet.VerifiedTxids;
import io.bbfindex.app.wallet.WalletApi;
import io.bbfindex.app.wallet.WalletException;
import io.bbfindex.ingest.blockfile.MerkleTree;
import io.bbfindex.ingest.encoding.HashKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bitcoinj.base.BitcoinNetwork;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.PartialMerkleTree;
import org.bitcoinj.core.TransactionInput;
import org.bitcoinj.core.TransactionOutput;
import org.jspecify.annotations.Nullable;

/**
 * A subset of the esplora REST API (Blockstream's {@code API.md}) under a configurable prefix: the
 * transaction, block and tip routes a wallet needs, with esplora's status codes and content types
 * (JSON objects, plain-text hex and heights, octet-stream raw bytes, plain-text errors).
 *
 * <p>One deliberate difference: {@code tx/:txid/status} of a txid nobody knows is a 404, like
 * {@code tx/:txid}, where esplora answers 200 {@code {"confirmed":false}}.
 */
public final class EsploraApi {
  /** The default prefix ({@code serve --esplora-prefix}). */
  public static final String DEFAULT_PREFIX = "/api";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HexFormat HEX = HexFormat.of();

  private final String prefix;
  private final WalletApi wallet;
  private final VerifiedReads reads;

  /** The followed node, or null when the server follows none. */
  private final @Nullable NodeRelay node;

  public EsploraApi(String prefix, WalletApi wallet, @Nullable NodeRelay node) {
    this.prefix = checkPrefix(prefix);
    this.wallet = Objects.requireNonNull(wallet, "wallet");
    this.reads = wallet.reads();
    this.node = node;
  }

  /** A prefix starts with a slash and does not end with one ({@code /api}, {@code /esplora/v1}). */
  public static String checkPrefix(String prefix) {
    if (prefix == null
        || !prefix.startsWith("/")
        || prefix.endsWith("/")
        || prefix.length() < 2
        || prefix.startsWith("/v1/")
        || prefix.equals("/v1")
        || !prefix.matches("[A-Za-z0-9/_.-]+")) {
      throw new IllegalArgumentException(
          "--esplora-prefix must start with '/', not end with one, not be /v1, and hold only"
              + " letters, digits and / _ . -: got "
              + prefix);
    }
    return prefix;
  }

  public String prefix() {
    return prefix;
  }

  WalletApi wallet() {
    return wallet;
  }

  /** {@code block-height/:height}: the active chain's block at that height. */
  Reply blockAtHeight(String height) {
    BlockAnswer b = reads.blockAt(integer(height, "height")).orElseThrow(EsploraApi::blockNotFound);
    return text(HashKeys.toDisplayHex(b.hash()));
  }

  /** {@code blocks/tip/height}. */
  Reply tipHeight() {
    return text(Integer.toString(reads.lookups().backend().tipHeight()));
  }

  /** {@code blocks/tip/hash}. */
  Reply tipHash() {
    return text(HashKeys.toDisplayHex(reads.tip().hash()));
  }

  /** {@code tx/:txid}: the transaction, decoded as esplora shows it. */
  Reply tx(String txidText) {
    byte[] txid = VerifiedReads.parseTxid(txidText);
    TxAnswer at = reads.locate(txid);
    StoredTx stored = reads.tx(txid, at);
    List<@Nullable TransactionOutput> prevouts = new ArrayList<>();
    for (TransactionInput input : stored.tx().getInputs()) {
      prevouts.add(input.isCoinBase() ? null : reads.spentOutput(input.getOutpoint()));
    }
    return json(EsploraJson.tx(stored, prevouts, status(at), network()));
  }

  /** {@code tx/:txid/status}. */
  Reply txStatus(String txidText) {
    TxAnswer at = reads.locate(VerifiedReads.parseTxid(txidText));
    return json(status(at));
  }

  private java.util.Map<String, Object> status(TxAnswer at) {
    BlockAnswer block =
        at.status() == ChainStatus.CONFIRMED
            ? reads.lookups().block(at.blockHash()).orElse(null)
            : null;
    return EsploraJson.status(at, block);
  }

  /** BIP 37 merkleblock (header + partial merkle tree) with the one transaction matched, hex. */
  Reply merkleblockProof(String txidText) {
    byte[] txid = VerifiedReads.parseTxid(txidText);
    MerkleProof proof = wallet.proof(txid);
    TxAnswer at = reads.locate(txid);
    BlockAnswer b = reads.blockByHash(at.blockHash());
    VerifiedTxids verified = reads.txids(b);
    MerkleTree txids = verified.tree();
    byte[] include = new byte[(txids.leafCount() + 7) / 8];
    include[proof.pos() >>> 3] |= (byte) (1 << (proof.pos() & 7));
    PartialMerkleTree tree = PartialMerkleTree.buildFromLeaves(include, txids.leaves());
    byte[] header = verified.header();
    return text(HEX.formatHex(header) + HEX.formatHex(tree.serialize()));
  }

  /** {@code block/:hash}. */
  Reply block(String hash) {
    BlockAnswer b = blockByHash(hash);
    return json(EsploraJson.block(reads.block(b), medianTime(b)));
  }

  /**
   * Esplora's block JSON of the block {@code hash} (internal order), as {@code block/:hash}; from
   * its header alone when its bytes cannot be read here; empty when the block is unknown.
   */
  public Optional<java.util.Map<String, Object>> blockJson(byte[] hash) {
    Optional<BlockAnswer> b = reads.lookups().block(hash);
    if (b.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(EsploraJson.block(reads.block(b.get()), medianTime(b.get())));
    } catch (RuntimeException unreadable) {
      return Optional.of(EsploraJson.blockHeader(b.get()));
    }
  }

  /** {@code block/:hash/header}: the 80-byte header, hex. */
  Reply blockHeader(String hash) {
    return text(HEX.formatHex(reads.block(blockByHash(hash)).bytes(), 0, 80));
  }

  /** {@code block/:hash/status}. */
  Reply blockStatus(String hash) {
    BlockAnswer b = blockByHash(hash);
    return json(
        EsploraJson.blockStatus(
            b, b.onActiveChain() ? reads.blockAt(b.height() + 1).orElse(null) : null));
  }

  /** {@code block/:hash/txids}. */
  Reply blockTxids(String hash) {
    return json(
        reads.txids(blockByHash(hash)).tree().leaves().stream().map(Sha256Hash::toString).toList());
  }

  /** {@code block/:hash/txid/:index}. */
  Reply blockTxid(String hash, String indexText) {
    List<Sha256Hash> txids = reads.txids(blockByHash(hash)).tree().leaves();
    int index = integer(indexText, "index");
    if (index >= txids.size()) {
      throw new WalletException(404, "tx_index_out_of_range", "tx index out of range");
    }
    return text(txids.get(index).toString());
  }

  /** {@code block/:hash/raw}. */
  Reply blockRaw(String hash) {
    return Reply.ok(Reply.OCTETS, reads.block(blockByHash(hash)).bytes());
  }

  private BlockAnswer blockByHash(String hash) {
    return reads.blockByHash(VerifiedReads.parseBlockHash(hash));
  }

  /** The median of the block's and its ten ancestors' times (BIP 113), as esplora reports. */
  private long medianTime(BlockAnswer b) {
    List<Long> times = new ArrayList<>();
    BlockAnswer at = b;
    for (int i = 0; i < 11 && at != null; i++) {
      times.add(at.time());
      at = at.height() == 0 ? null : reads.lookups().block(at.prevHash()).orElse(null);
    }
    times.sort(null);
    return times.get(times.size() / 2);
  }

  /** {@code mempool/txids}, from the followed node. */
  Reply mempoolTxids() {
    if (node == null) {
      throw new WalletException(
          404, "not_following", "mempool/txids needs a followed node (serve --follow)");
    }
    try {
      return json(node.mempoolTxids());
    } catch (IOException e) {
      throw WalletException.causedBy(503, "node_unreachable", "the node did not answer", e);
    }
  }

  /** {@code POST tx}: relays the hex body to the followed node. */
  Reply postTx(byte[] body) {
    if (node == null || !node.relayEnabled()) {
      throw new WalletException(
          404,
          "relay_disabled",
          "POST tx relays to the followed node only with serve --follow --esplora-relay");
    }
    String hex = new String(body, StandardCharsets.US_ASCII).strip();
    if (hex.length() >= 2 && hex.startsWith("\"") && hex.endsWith("\"")) {
      hex = hex.substring(1, hex.length() - 1); // a JSON string: a browser page's JSON post
    }
    if (hex.isEmpty() || hex.length() % 2 != 0 || !hex.matches("[0-9a-fA-F]+")) {
      throw new WalletException(400, "malformed_tx", "the body must be the transaction in hex");
    }
    try {
      return text(node.sendRawTransaction(hex));
    } catch (IllegalArgumentException e) {
      String why = e.getMessage();
      throw new WalletException(400, "rejected", why != null ? why : e.toString());
    } catch (IOException e) {
      throw WalletException.causedBy(503, "node_unreachable", "the node did not answer", e);
    }
  }

  private BitcoinNetwork network() {
    try {
      return ScriptTypes.network(reads.lookups().backend().blockData().orElseThrow().network());
    } catch (IOException e) {
      throw WalletException.causedBy(500, "block_data_unreadable", "reading block data failed", e);
    }
  }

  /** esplora's error texts for the common refusals; the detail for the rest. */
  static String esploraText(WalletException e) {
    return switch (e.code()) {
      case "tx_not_found" -> "Transaction not found";
      case "block_not_found" -> "Block not found";
      case "malformed_txid", "malformed_hash" -> "Invalid hex string";
      default -> e.detail();
    };
  }

  private static int integer(String text, String what) {
    if (!text.matches("[0-9]{1,10}")) {
      throw new WalletException(400, "malformed_" + what, "invalid " + what + ": " + text);
    }
    long v = Long.parseLong(text);
    if (v > Integer.MAX_VALUE) {
      throw new WalletException(404, "block_not_found", "Block not found");
    }
    return (int) v;
  }

  private static WalletException blockNotFound() {
    return new WalletException(404, "block_not_found", "Block not found");
  }

  private static Reply text(String s) {
    return Reply.ok(Reply.TEXT, s.getBytes(StandardCharsets.UTF_8));
  }

  private static Reply json(Object body) {
    try {
      return Reply.ok(Reply.JSON, MAPPER.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + body.getClass().getSimpleName(), e);
    }
  }
}
