package io.bbfindex.benchmarks.push;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bitcoinj.base.Coin;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Transaction;
import org.bitcoinj.core.TransactionInput;
import org.bitcoinj.core.TransactionOutPoint;
import org.bitcoinj.core.TransactionWitness;
import org.bitcoinj.script.Script;
import org.bitcoinj.script.ScriptBuilder;
import org.bitcoinj.script.ScriptOpCodes;

/**
 * The regtest coins of the push benchmark: thousands of independent mempool transactions, made
 * without a wallet. Every output pays a P2WSH of the script {@code OP_TRUE}, which anyone spends
 * with that script as the only witness item: no key, no signing, one {@code sendrawtransaction} per
 * tx. Coinbases are mined to it; each mature coinbase is fanned out into {@value #FAN_OUT} outputs
 * (a standard tx stays under 100,000 vbytes), and each of those is spent by one tx that stays in
 * the mempool until the benchmark mines it.
 */
final class PushChain {
  /** Outputs of one fan-out tx: 2,000 P2WSH outputs are about 86,000 vbytes. */
  static final int FAN_OUT = 2_000;

  private static final byte[] OP_TRUE = {(byte) ScriptOpCodes.OP_TRUE};
  private static final Script ANYONE = ScriptBuilder.createP2WSHOutputScript(new Script(OP_TRUE));
  private static final long COINBASE_SAT = 50 * Coin.COIN.value;
  private static final long FAN_OUT_FEE_SAT = 1_000_000; // ~12 sat/vB for a full fan-out

  /** Each fan-out output; a fan-out of fewer outputs pays the rest as fee. */
  private static final long OUTPUT_SAT = (COINBASE_SAT - FAN_OUT_FEE_SAT) / FAN_OUT;

  private static final long SPEND_FEE_SAT = 1_000; // ~10 sat/vB
  private static final int COINBASE_MATURITY = 100;

  private final RegtestNode node;
  private final String address;

  private PushChain(RegtestNode node, String address) {
    this.node = node;
    this.address = address;
  }

  /** The node's address of the anyone-can-spend script, which it derives itself. */
  static PushChain on(RegtestNode node) throws IOException {
    String p2wsh = node.rpc().call("decodescript", "51").path("segwit").path("address").asText("");
    if (p2wsh.isEmpty()) {
      throw new IOException("decodescript 51 named no P2WSH address");
    }
    return new PushChain(node, p2wsh);
  }

  /** The address blocks are mined to (the benchmark's {@code generateblock} too). */
  String address() {
    return address;
  }

  /**
   * Mines the coins for {@code count} spends and confirms their fan-outs: the outpoints, one per
   * future spend.
   */
  List<TransactionOutPoint> prepare(int count) throws IOException {
    int fanOuts = (count + FAN_OUT - 1) / FAN_OUT;
    JsonNode hashes = node.rpc().call("generatetoaddress", fanOuts + COINBASE_MATURITY, address);
    List<TransactionOutPoint> outs = new ArrayList<>();
    for (int f = 0; f < fanOuts; f++) {
      JsonNode block = node.rpc().call("getblock", hashes.get(f).asText(), 1);
      Sha256Hash coinbase = Sha256Hash.wrap(block.path("tx").get(0).asText());
      int n = Math.min(FAN_OUT, count - f * FAN_OUT);
      Transaction tx = spend(new TransactionOutPoint(0, coinbase), n, COINBASE_SAT);
      // maxfeerate 0: a short fan-out (a small run) pays most of its coinbase as fee
      String txid = node.rpc().call("sendrawtransaction", hex(tx), 0).asText();
      for (int i = 0; i < n; i++) {
        outs.add(new TransactionOutPoint(i, Sha256Hash.wrap(txid)));
      }
    }
    node.rpc().call("generatetoaddress", 1, address);
    return outs;
  }

  /**
   * Sends one tx spending each of {@code outs} from {@code threads} threads (the node's RPC serves
   * several at once); their txids in the order of {@code outs}.
   */
  List<Hash32> sendSpends(List<TransactionOutPoint> outs, int threads)
      throws IOException, InterruptedException {
    List<String> hex = new ArrayList<>(outs.size());
    for (TransactionOutPoint out : outs) {
      hex.add(hex(spend(out, 1, OUTPUT_SAT)));
    }
    List<Hash32> txids = new ArrayList<>(outs.size());
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<String>> sent = new ArrayList<>();
      for (String h : hex) {
        sent.add(pool.submit(() -> node.rpc().call("sendrawtransaction", h).asText()));
      }
      for (Future<String> f : sent) {
        txids.add(Hash32.ofDisplayHex(f.get()));
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException("sendrawtransaction failed", e.getCause());
    }
    return txids;
  }

  /**
   * A tx spending {@code out} (of {@code value} satoshis) into {@code n} anyone-can-spend outputs:
   * a fan-out ({@code n > 1}) of {@link #OUTPUT_SAT} each, else one of the value less a fee.
   */
  private static Transaction spend(TransactionOutPoint out, int n, long value) {
    Transaction tx = new Transaction();
    tx.setVersion(2);
    tx.addInput(
        new TransactionInput(tx, new byte[0], out, Coin.valueOf(value))
            .withWitness(TransactionWitness.of(OP_TRUE)));
    for (int i = 0; i < n; i++) {
      tx.addOutput(Coin.valueOf(n > 1 ? OUTPUT_SAT : value - SPEND_FEE_SAT), ANYONE);
    }
    return tx;
  }

  private static String hex(Transaction tx) {
    return HexFormat.of().formatHex(tx.serialize());
  }
}
