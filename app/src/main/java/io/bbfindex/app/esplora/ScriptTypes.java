package io.bbfindex.app.esplora;

import org.bitcoinj.base.Address;
import org.bitcoinj.base.BitcoinNetwork;
import org.bitcoinj.script.Script;
import org.bitcoinj.script.ScriptException;
import org.bitcoinj.script.ScriptPattern;
import org.jspecify.annotations.Nullable;

/** An output script's esplora {@code scriptpubkey_type} and address, classified by bitcoinj. */
final class ScriptTypes {
  private ScriptTypes() {}

  /** The type and, for the address-bearing types, the address (else null). */
  record Classified(String type, @Nullable String address) {}

  static Classified classify(byte[] scriptPubKey, BitcoinNetwork network) {
    if (scriptPubKey.length == 0) {
      return new Classified("empty", null);
    }
    Script script;
    try {
      script = Script.parse(scriptPubKey);
    } catch (ScriptException e) {
      return new Classified("unknown", null); // unparseable scripts are valid output scripts
    }
    String type;
    if (ScriptPattern.isP2PK(script)) {
      return new Classified("p2pk", null); // esplora gives pay-to-pubkey outputs no address
    } else if (ScriptPattern.isP2PKH(script)) {
      type = "p2pkh";
    } else if (ScriptPattern.isP2SH(script)) {
      type = "p2sh";
    } else if (ScriptPattern.isP2WPKH(script)) {
      type = "v0_p2wpkh";
    } else if (ScriptPattern.isP2WSH(script)) {
      type = "v0_p2wsh";
    } else if (ScriptPattern.isP2TR(script)) {
      type = "v1_p2tr";
    } else if (ScriptPattern.isOpReturn(script)) {
      return new Classified("op_return", null);
    } else {
      return new Classified("unknown", null);
    }
    return new Classified(type, address(script, network));
  }

  private static @Nullable String address(Script script, BitcoinNetwork network) {
    try {
      Address a = script.getToAddress(network);
      return a.toString();
    } catch (ScriptException | IllegalArgumentException e) {
      return null;
    }
  }

  static BitcoinNetwork network(String coreName) {
    return switch (coreName) {
      case "main" -> BitcoinNetwork.MAINNET;
      case "test", "testnet4" -> BitcoinNetwork.TESTNET;
      case "signet" -> BitcoinNetwork.SIGNET;
      default -> BitcoinNetwork.REGTEST;
    };
  }
}
