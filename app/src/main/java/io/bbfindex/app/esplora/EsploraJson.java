package io.bbfindex.app.esplora;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainStatus;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.wallet.StoredBlock;
import io.bbfindex.app.wallet.StoredTx;
import io.bbfindex.ingest.encoding.HashKeys;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bitcoinj.base.BitcoinNetwork;
import org.bitcoinj.core.Transaction;
import org.bitcoinj.core.TransactionInput;
import org.bitcoinj.core.TransactionOutput;
import org.jspecify.annotations.Nullable;

/**
 * esplora's transaction, status and block objects (API.md "Transaction format", "Block format").
 */
final class EsploraJson {
  private static final HexFormat HEX = HexFormat.of();

  private EsploraJson() {}

  /**
   * The {@code tx/:txid} object.
   *
   * @param prevouts one per input: the spent output, or null for a coinbase input or an input whose
   *     transaction the index does not hold (then {@code fee} is null too)
   */
  static Map<String, Object> tx(
      StoredTx stored,
      List<@Nullable TransactionOutput> prevouts,
      Map<String, Object> status,
      BitcoinNetwork network) {
    Transaction tx = stored.tx();
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("txid", tx.getTxId().toString());
    o.put("version", tx.getVersion());
    o.put("locktime", tx.getLockTime());
    List<Object> vin = new ArrayList<>();
    boolean allKnown = true;
    long in = 0;
    for (int i = 0; i < tx.getInputs().size(); i++) {
      TransactionInput input = tx.getInputs().get(i);
      Map<String, Object> v = new LinkedHashMap<>();
      boolean coinbase = input.isCoinBase();
      v.put("txid", input.getOutpoint().hash().toString());
      v.put("vout", input.getOutpoint().index());
      TransactionOutput prev = prevouts.get(i);
      v.put("prevout", prev == null ? null : output(prev, network));
      v.put("scriptsig", HEX.formatHex(input.getScriptBytes()));
      if (input.hasWitness()) {
        List<String> witness = new ArrayList<>();
        for (int w = 0; w < input.getWitness().getPushCount(); w++) {
          witness.add(HEX.formatHex(input.getWitness().getPush(w)));
        }
        v.put("witness", witness);
      }
      v.put("is_coinbase", coinbase);
      v.put("sequence", input.getSequenceNumber());
      vin.add(v);
      if (!coinbase) {
        if (prev == null) {
          allKnown = false;
        } else {
          in += prev.getValue().value;
        }
      }
    }
    o.put("vin", vin);
    List<Object> vout = new ArrayList<>();
    long out = 0;
    for (TransactionOutput output : tx.getOutputs()) {
      vout.add(output(output, network));
      out += output.getValue().value;
    }
    o.put("vout", vout);
    o.put("size", stored.bytes().length);
    o.put("weight", tx.getWeight());
    // esplora reports a coinbase's fee as 0: it pays none, it collects them
    o.put("fee", tx.isCoinBase() ? Long.valueOf(0) : allKnown ? Long.valueOf(in - out) : null);
    o.put("status", status);
    return o;
  }

  private static Map<String, Object> output(TransactionOutput output, BitcoinNetwork network) {
    Map<String, Object> o = new LinkedHashMap<>();
    byte[] script = output.getScriptBytes();
    ScriptTypes.Classified c = ScriptTypes.classify(script, network);
    o.put("scriptpubkey", HEX.formatHex(script));
    o.put("scriptpubkey_type", c.type());
    if (c.address() != null) {
      o.put("scriptpubkey_address", c.address());
    }
    o.put("value", output.getValue().value);
    return o;
  }

  /**
   * {@code tx/:txid/status}: confirmed with its block on the active chain; unconfirmed in the
   * mempool or in a stale block only (esplora's view: a stale block's transaction is not
   * confirmed).
   */
  static Map<String, Object> status(TxAnswer at, @Nullable BlockAnswer block) {
    Map<String, Object> o = new LinkedHashMap<>();
    BlockAnswer in = at.status() == ChainStatus.CONFIRMED ? block : null;
    o.put("confirmed", in != null);
    if (in != null) {
      o.put("block_height", at.height());
      o.put("block_hash", HashKeys.toDisplayHex(at.blockHash()));
      o.put("block_time", in.time());
    }
    return o;
  }

  /** {@code block/:hash}. */
  static Map<String, Object> block(StoredBlock stored, long medianTime) {
    BlockAnswer b = stored.answer();
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("id", HashKeys.toDisplayHex(b.hash()));
    o.put("height", b.height());
    o.put("version", b.version());
    o.put("timestamp", b.time());
    o.put("tx_count", stored.txids().size());
    o.put("size", stored.bytes().length);
    o.put("weight", weight(stored));
    o.put("merkle_root", HashKeys.toDisplayHex(b.merkleRoot()));
    o.put("previousblockhash", b.height() == 0 ? null : HashKeys.toDisplayHex(b.prevHash()));
    o.put("mediantime", medianTime);
    o.put("nonce", b.nonce());
    o.put("bits", b.bits());
    o.put("difficulty", difficulty(b.bits()));
    return o;
  }

  /**
   * A block's JSON from its header alone, for a block whose bytes cannot be read here (a followed
   * block the snapshot's files do not place): {@code size}, {@code weight} and {@code mediantime}
   * are left out rather than guessed.
   */
  static Map<String, Object> blockHeader(BlockAnswer b) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("id", HashKeys.toDisplayHex(b.hash()));
    o.put("height", b.height());
    o.put("version", b.version());
    o.put("timestamp", b.time());
    o.put("tx_count", b.nTx());
    o.put("merkle_root", HashKeys.toDisplayHex(b.merkleRoot()));
    o.put("previousblockhash", b.height() == 0 ? null : HashKeys.toDisplayHex(b.prevHash()));
    o.put("nonce", b.nonce());
    o.put("bits", b.bits());
    o.put("difficulty", difficulty(b.bits()));
    return o;
  }

  /** {@code block/:hash/status}. */
  static Map<String, Object> blockStatus(BlockAnswer b, @Nullable BlockAnswer next) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("in_best_chain", b.onActiveChain());
    if (b.onActiveChain()) {
      o.put("height", b.height());
      o.put("next_best", next == null ? null : HashKeys.toDisplayHex(next.hash()));
    }
    return o;
  }

  /**
   * BIP 141 weight: the stripped size (header, count, transactions without witness) times 3 plus
   * the total size.
   */
  private static long weight(StoredBlock stored) {
    long txWeights = 0;
    for (Transaction tx : stored.transactions()) {
      txWeights += tx.getWeight();
    }
    int countBytes = stored.bytes().length - 80 - sumSizes(stored);
    return txWeights + 4L * (80 + countBytes);
  }

  private static int sumSizes(StoredBlock stored) {
    int sum = 0;
    for (Transaction tx : stored.transactions()) {
      sum += tx.messageSize();
    }
    return sum;
  }

  /** Core's GetDifficulty: the genesis target over the block's, from the compact bits. */
  static double difficulty(long bits) {
    int shift = (int) ((bits >>> 24) & 0xff);
    double diff = (double) 0x0000ffff / (double) (bits & 0x00ffffff);
    for (; shift < 29; shift++) {
      diff *= 256.0;
    }
    for (; shift > 29; shift--) {
      diff /= 256.0;
    }
    return diff;
  }
}
