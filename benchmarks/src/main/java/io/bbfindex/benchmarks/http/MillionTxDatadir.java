package io.bbfindex.benchmarks.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.ingest.testing.FileTrees;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.bitcoinj.base.Coin;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Transaction;
import org.bitcoinj.script.Script;

/**
 * A regtest data directory of at least {@code txs} transactions written by a real {@code bitcoind}
 * ({@code -txindex -rest}), generated once and kept in a cache directory outside the repository.
 *
 * <p>How, in seconds rather than hours: the node mines {@code 100 + blocks} blocks to the
 * anyone-can-spend script {@code OP_TRUE} ({@code generatetodescriptor raw(51)}); then each of
 * {@code blocks} blocks holds a fan-out transaction spending one matured coinbase into {@code
 * fanOut} {@code OP_TRUE} outputs and {@code fanOut} one-in-one-out children spending them (to a
 * 22-byte witness-v0 script each, the size of a P2WPKH output), built here with bitcoinj and handed
 * to the node's {@code generateblock}, which builds the coinbase, the merkle root and the regtest
 * proof of work, validates the block and connects it. No signatures: {@code OP_TRUE} needs none, so
 * the node validates a block in well under a second. With a fan-out of 10,000 a block is about 920
 * kB, under the 1 MB of non-witness bytes a block may hold.
 *
 * <p>The directory: {@code node/} (bitcoind's {@code -datadir}; the Core data directory is {@code
 * node/regtest}), {@code txids.bin} (the txids of the fan-outs and children, 32 bytes each, in
 * bitcoinj's display order) and {@code complete}, written last, after the node stopped cleanly and
 * the count was checked. A directory without it is an interrupted generation and is rebuilt.
 */
final class MillionTxDatadir {
  /**
   * Bumped whenever the generated chain changes: a cached directory of another format is unused.
   */
  static final int FORMAT = 1;

  private static final String OP_TRUE_DESCRIPTOR = "raw(51)";

  /**
   * What to generate.
   *
   * @param txs the least number of transactions on the chain (coinbases included)
   * @param fanOut outputs of each block's fan-out, and children spending them
   */
  record Size(int txs, int fanOut) {
    /**
     * Blocks of generated transactions: the chain holds {@code 100 + blocks} mined coinbases plus
     * {@code fanOut + 2} transactions per generated block.
     */
    int blocks() {
      // past height 149 regtest's subsidy halves, and a fan-out of 50 BTC would overspend
      if (txs > 100 + 149L * (fanOut + 3)) {
        throw new IllegalArgumentException("at most 149 blocks of fan-out " + fanOut);
      }
      return (int) Math.ceilDiv(Math.max(0, txs - 100), fanOut + 3);
    }
  }

  /**
   * A complete cached directory.
   *
   * @param datadir Core's data directory ({@code .../node/regtest})
   * @param txids the generated txids, 32 bytes each
   * @param chainTxs the node's {@code getchaintxstats} count
   * @param seconds the generation's wall time (0 when the cache was reused)
   */
  record Generated(Path datadir, Path txids, long chainTxs, double seconds) {
    /** How many txids {@link #txids()} holds. */
    int count() throws IOException {
      return (int) (Files.size(txids) / 32);
    }
  }

  private MillionTxDatadir() {}

  /** {@code ${XDG_CACHE_HOME:-~/.cache}/bbf-index/vs-core-<txs>-v<FORMAT>}. */
  static Path cacheDir(Size size) {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("bbf-index").resolve("vs-core-" + size.txs() + "-v" + FORMAT);
  }

  /** The cached directory in {@code dir} when complete, else generates it there first. */
  static Generated ensure(Path bitcoind, Path dir, Size size)
      throws IOException, InterruptedException {
    Path marker = dir.resolve("complete");
    if (Files.exists(marker)) {
      return new Generated(
          dir.resolve("node/regtest"),
          dir.resolve("txids.bin"),
          Long.parseLong(Files.readString(marker).strip()),
          0);
    }
    if (Files.exists(dir)) {
      FileTrees.deleteTree(dir); // an interrupted generation: start again
    }
    long start = System.nanoTime();
    Path datadir = Files.createDirectories(dir.resolve("node/regtest"));
    long chainTxs;
    try (CoreRestNode node =
        CoreRestNode.start(bitcoind, true, datadir, dir.resolve("generate.log"))) {
      NodeRpc rpc = node.rpc(Duration.ofMinutes(5));
      chainTxs = generate(rpc, size, dir.resolve("txids.bin"));
      node.awaitTxindexSynced(Duration.ofMinutes(5));
      node.stopCleanly();
    }
    Files.writeString(marker, chainTxs + "\n");
    return new Generated(
        datadir, dir.resolve("txids.bin"), chainTxs, (System.nanoTime() - start) / 1e9);
  }

  /** Mines and builds the chain; its transaction count, checked against {@code size.txs()}. */
  private static long generate(NodeRpc rpc, Size size, Path txidFile) throws IOException {
    String descriptor =
        rpc.call("getdescriptorinfo", OP_TRUE_DESCRIPTOR).path("descriptor").asText();
    int blocks = size.blocks();
    JsonNode mined = rpc.call("generatetodescriptor", 100 + blocks, descriptor);
    try (OutputStream txids = new BufferedOutputStream(Files.newOutputStream(txidFile))) {
      for (int b = 0; b < blocks; b++) {
        JsonNode block = rpc.call("getblock", mined.get(b).asText(), 1);
        Sha256Hash coinbase = Sha256Hash.wrap(block.path("tx").get(0).asText());
        List<String> raw = new ArrayList<>(size.fanOut() + 1);
        for (Transaction tx : fanOutBlock(coinbase, size.fanOut(), b)) {
          raw.add(HexFormat.of().formatHex(tx.serialize()));
          txids.write(tx.getTxId().getBytes());
        }
        rpc.call("generateblock", descriptor, raw);
      }
    }
    long count = rpc.call("getchaintxstats").path("txcount").asLong();
    if (count < size.txs()) {
      throw new IOException("the generated chain holds " + count + " txs, not " + size.txs());
    }
    return count;
  }

  /**
   * A fan-out spending output 0 (50 BTC to {@code OP_TRUE}) of {@code coinbase} into {@code fanOut}
   * {@code OP_TRUE} outputs, then one child per output; block {@code b}'s children pay to scripts
   * no other block's do.
   */
  static List<Transaction> fanOutBlock(Sha256Hash coinbase, int fanOut, int b) {
    Script empty = Script.parse(new byte[0]);
    Script opTrue = Script.parse(new byte[] {0x51});
    Coin each = Coin.valueOf(Coin.COIN.multiply(50).value / fanOut);
    Transaction fan = new Transaction();
    fan.addInput(coinbase, 0, empty);
    for (int i = 0; i < fanOut; i++) {
      fan.addOutput(each, opTrue);
    }
    List<Transaction> txs = new ArrayList<>(fanOut + 1);
    txs.add(fan);
    byte[] program = new byte[22];
    program[1] = 20; // OP_0 PUSH20: a witness v0 key-hash script
    Sha256Hash fanTxid = fan.getTxId();
    for (int i = 0; i < fanOut; i++) {
      Transaction child = new Transaction();
      child.addInput(fanTxid, i, empty);
      program[2] = (byte) b;
      program[3] = (byte) (b >>> 8);
      program[4] = (byte) i;
      program[5] = (byte) (i >>> 8);
      program[6] = (byte) (i >>> 16);
      child.addOutput(each, Script.parse(program.clone()));
      txs.add(child);
    }
    return txs;
  }

  /** Copies the tree {@code from} to {@code to} (which must not exist). */
  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else if (!f.getFileName().toString().equals("LOCK")) {
          Files.copy(f, target);
        }
      }
    }
  }
}
