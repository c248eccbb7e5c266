package io.bbfindex.follow.regtest;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.node.NodeUnreachableException;
import io.bbfindex.follow.node.RpcCredentials;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real regtest {@code bitcoind} (any Core build, found through {@code BITCOIND} or {@code
 * BITCOIND_LEGACY_TXINDEX}), for tests and {@code bench follow}, in a temporary datadir: {@code
 * -txindex -rest}, the ZMQ {@code sequence} publisher unless turned off, RPC on 127.0.0.1 with
 * random free ports below the ephemeral range (retried when the node cannot bind), cookie
 * authentication, a descriptor wallet {@code w}. {@link #close()} stops the node and deletes the
 * datadir.
 */
public final class RegtestNode implements AutoCloseable {
  private static final int START_ATTEMPTS = 5;

  /** The build writing the hashed txindex of Core >= 32. */
  public static final String CURRENT = "BITCOIND";

  /** The build writing the legacy {@code 't'} txindex. */
  public static final String LEGACY_TXINDEX = "BITCOIND_LEGACY_TXINDEX";

  private final Path bitcoind;
  private final Path datadir;
  private final boolean zmqEnabled;
  private int rpcPort;
  private int zmqPort;
  private volatile Process process;
  private volatile NodeRpc rpc;
  private volatile List<String> extraArgs = List.of();
  private NodeRpc wallet;

  private RegtestNode(Path bitcoind, Path datadir, boolean zmqEnabled) {
    this.bitcoind = bitcoind;
    this.datadir = datadir;
    this.zmqEnabled = zmqEnabled;
  }

  /**
   * The {@code bitcoind} the environment variable {@code variable} names, if it is an executable
   * file.
   */
  public static Optional<Path> binary(String variable) {
    String env = System.getenv(variable);
    if (env == null || env.isBlank() || !Files.isExecutable(Path.of(env))) {
      return Optional.empty();
    }
    return Optional.of(Path.of(env));
  }

  /**
   * A node alone on 127.0.0.1: txindex and REST on, no peers, RPC on {@code rpcPort} only from
   * loopback, in the foreground, logging to its datadir.
   */
  public static List<String> isolatedFlags(int rpcPort) {
    return List.of(
        "-txindex=1",
        "-rest=1",
        "-server=1",
        "-listen=0",
        "-connect=0",
        "-dnsseed=0",
        "-rpcbind=127.0.0.1",
        "-rpcallowip=127.0.0.1",
        "-rpcport=" + rpcPort,
        "-printtoconsole=0",
        "-daemon=0");
  }

  /**
   * Starts a fresh node of {@code binary} with a wallet; ZMQ {@code sequence} on when {@code zmq}.
   */
  public static RegtestNode start(Path binary, boolean zmq)
      throws IOException, InterruptedException {
    return start(binary, zmq, List.of());
  }

  /**
   * As {@link #start(Path, boolean)}, with more bitcoind options after the usual ones (a later
   * option wins: {@code -txindex=0} starts a node without a txindex).
   */
  public static RegtestNode start(Path binary, boolean zmq, List<String> options)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("bbf-regtest-");
    RegtestNode node = new RegtestNode(binary, dir, zmq);
    node.extraArgs = List.copyOf(options);
    try {
      node.launch(true);
      node.rpc.call("createwallet", "w");
      return node;
    } catch (IOException | RuntimeException | InterruptedException e) {
      node.close();
      throw e;
    }
  }

  /** Starts the process; with {@code newPorts} draws fresh ports (and again when binding fails). */
  private void launch(boolean newPorts) throws IOException, InterruptedException {
    IOException last = null;
    for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
      if (newPorts || attempt > 0) {
        rpcPort = ThreadLocalRandom.current().nextInt(20_000, 31_000);
        zmqPort = rpcPort + 1;
      }
      List<String> cmd =
          new ArrayList<>(List.of(bitcoind.toString(), "-regtest", "-datadir=" + datadir));
      cmd.addAll(isolatedFlags(rpcPort));
      cmd.add("-fallbackfee=0.0001");
      cmd.addAll(extraArgs);
      if (zmqEnabled) {
        cmd.add("-zmqpubsequence=tcp://127.0.0.1:" + zmqPort);
      }
      process =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(datadir.resolve("stdout.txt").toFile())
              .start();
      rpc =
          new NodeRpc(
              URI.create("http://127.0.0.1:" + rpcPort + "/"),
              new RpcCredentials.Cookie(datadir.resolve("regtest/.cookie")),
              Duration.ofSeconds(30));
      wallet =
          new NodeRpc(
              URI.create("http://127.0.0.1:" + rpcPort + "/wallet/w"),
              new RpcCredentials.Cookie(datadir.resolve("regtest/.cookie")),
              Duration.ofSeconds(30));
      try {
        awaitRpc();
        return;
      } catch (IOException e) {
        last = e;
        process.destroyForcibly().waitFor();
      }
    }
    throw new IOException(
        "bitcoind did not start in " + START_ATTEMPTS + " attempts; see " + datadir, last);
  }

  private void awaitRpc() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      if (!process.isAlive()) {
        throw new IOException(
            "bitcoind exited with "
                + process.exitValue()
                + " at start-up: "
                + Files.readString(datadir.resolve("stdout.txt")));
      }
      try {
        rpc.call("getblockchaininfo");
        return;
      } catch (NodeUnreachableException e) {
        if (System.nanoTime() > deadline) {
          throw new IOException("bitcoind's RPC did not come up within 60 s", e);
        }
        Thread.sleep(50);
      }
    }
  }

  public NodeRpc rpc() {
    return rpc;
  }

  /** The RPC of wallet {@code w}. */
  public NodeRpc wallet() {
    return wallet;
  }

  public Path datadir() {
    return datadir;
  }

  public Path blocksDir() {
    return datadir.resolve("regtest/blocks");
  }

  public String zmqEndpoint() {
    return "tcp://127.0.0.1:" + zmqPort;
  }

  /** Mines {@code n} blocks to a new wallet address; returns their hashes, oldest first. */
  public List<Hash32> mine(int n) throws IOException {
    String address = wallet.call("getnewaddress").asText();
    List<Hash32> hashes = new ArrayList<>();
    for (JsonNode h : rpc.call("generatetoaddress", n, address)) {
      hashes.add(Hash32.ofDisplayHex(h.asText()));
    }
    return hashes;
  }

  public Hash32 bestBlock() throws IOException {
    return Hash32.ofDisplayHex(rpc.call("getbestblockhash").asText());
  }

  /**
   * Sends {@code amount} BTC to a new wallet address of {@code type} (legacy, p2sh-segwit, bech32,
   * bech32m).
   */
  public Hash32 send(String type, double amount) throws IOException {
    String address = wallet.call("getnewaddress", "", type).asText();
    return Hash32.ofDisplayHex(wallet.call("sendtoaddress", address, amount).asText());
  }

  /**
   * Sends {@code amount} BTC to a new bech32 address in a tx that does not signal BIP 125
   * replaceability.
   */
  public Hash32 sendUnsignalled(double amount) throws IOException {
    String address = wallet.call("getnewaddress", "", "bech32").asText();
    // sendtoaddress address amount comment comment_to subtractfeefromamount replaceable
    return Hash32.ofDisplayHex(
        wallet.call("sendtoaddress", address, amount, "", "", false, false).asText());
  }

  /**
   * A full-RBF replacement of the mempool tx {@code txid}: a tx of the wallet that spends its first
   * input (a confirmed output) to a new address with a 0.001 BTC fee, not signalling either, sent
   * with {@code sendrawtransaction}. Core 28 and later accept it by default ({@code
   * mempoolfullrbf}).
   */
  public Hash32 doubleSpend(Hash32 txid) throws IOException {
    JsonNode in = rpc.call("getrawtransaction", txid.displayHex(), 1).path("vin").get(0);
    String prev = in.path("txid").asText();
    int vout = in.path("vout").asInt();
    double value =
        rpc.call("getrawtransaction", prev, 1).path("vout").get(vout).path("value").asDouble();
    String address = wallet.call("getnewaddress", "", "bech32").asText();
    Object inputs = List.of(java.util.Map.of("txid", prev, "vout", vout, "sequence", 0xfffffffeL));
    Object outputs =
        java.util.Map.of(
            address,
            java.math.BigDecimal.valueOf(value).subtract(new java.math.BigDecimal("0.001")));
    String raw = rpc.call("createrawtransaction", inputs, outputs).asText();
    String signed = wallet.call("signrawtransactionwithwallet", raw).path("hex").asText();
    return Hash32.ofDisplayHex(rpc.call("sendrawtransaction", signed).asText());
  }

  /** Stops the node cleanly (RPC {@code stop}) and waits for the process. */
  public void stop() throws IOException, InterruptedException {
    if (process == null || !process.isAlive()) {
      return;
    }
    try {
      rpc.call("stop");
    } catch (IOException e) {
      // already stopping
    }
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  /** Starts the stopped node again on the same datadir and ports (the cookie changes). */
  public void restart() throws IOException, InterruptedException {
    restart(List.of());
  }

  /** As {@link #restart()}, with more bitcoind options (e.g. {@code -forcecompactdb}). */
  public void restart(List<String> options) throws IOException, InterruptedException {
    extraArgs = List.copyOf(options);
    launch(false);
    rpc.call("loadwallet", "w");
  }

  /**
   * Stops the node (forcibly if it does not stop) and deletes its datadir.
   *
   * @throws IOException if the datadir cannot be deleted
   */
  @Override
  public void close() throws IOException {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (process != null && process.isAlive()) {
        process.destroyForcibly();
        try {
          process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      try (Stream<Path> files = Files.walk(datadir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
