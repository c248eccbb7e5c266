package io.bbfindex.readme;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.ingest.testing.RequiredTool;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's sidecar command, {@code ./bbf-index serve --datadir ~/.bitcoin --follow} and nothing
 * else, beside a real bitcoind started as a user starts one: {@code bitcoind} with no argument,
 * configured by {@code ~/.bitcoin/bitcoin.conf} (regtest, txindex, its RPC on a port of its own in
 * the {@code [regtest]} section, ZMQ {@code sequence}), cookie authentication, a hundred blocks
 * mined minutes ago and not flushed (Core writes its block index to disk about hourly). Every txid
 * must be answered as the node reports it, mempool txs as {@code mempool}, and a new transaction
 * and a new block within 1 s.
 */
class SidecarCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path home;

  private Path bitcoind;
  private Path cli;

  @Test
  void sidecarBesideAFreshNodeAnswersAsTheNodeDoes() throws Exception {
    bitcoind = binary("BITCOIND");
    cli = binary("BITCOIN_CLI");
    Path dot = Files.createDirectories(home.resolve(".bitcoin"));
    Files.writeString(
        dot.resolve("bitcoin.conf"),
        """
        # a regtest node with its transaction index, its RPC on a port of its own
        regtest=1
        txindex=1
        fallbackfee=0.0002
        [regtest]
        rpcport=%d
        listen=0
        zmqpubsequence=tcp://127.0.0.1:%d
        """
            .formatted(freePort(), freePort()));
    ProcessBuilder node =
        new ProcessBuilder(bitcoind.toString())
            .redirectErrorStream(true)
            .redirectOutput(home.resolve("bitcoind.out").toFile())
            .directory(home.toFile());
    node.environment().put("HOME", home.toString());
    Process running = node.start();
    try {
      cli("-rpcwait", "createwallet", "w");
      List<String> addresses = new ArrayList<>();
      for (String type : List.of("legacy", "p2sh-segwit", "bech32", "bech32m")) {
        addresses.add(cli("getnewaddress", "", type));
      }
      cli("generatetoaddress", "101", addresses.get(2));
      for (String a : addresses) {
        cli("sendtoaddress", a, "1.5");
      }
      cli("generatetoaddress", "1", addresses.get(3));
      List<String> mempool = new ArrayList<>();
      mempool.add(cli("sendtoaddress", addresses.get(0), "0.7"));
      mempool.add(cli("sendtoaddress", addresses.get(2), "0.3"));

      Map<String, String> env = Map.of("HOME", home.toString());
      try (Launcher.Server s =
          Launcher.serve(
              Launcher.root(),
              env,
              Duration.ofMinutes(5),
              Launcher.onFreePort(ReadmeCommands.SIDECAR))) {
        assertTrue(
            s.output().contains("filter store " + home.resolve(".local/share/bbf-index")),
            s.output());
        long listening = System.nanoTime();
        Map<String, JsonNode> expected = nodeAnswers(mempool);
        awaitAnswers(s, expected, Duration.ofSeconds(60));
        System.out.printf(
            "sidecar: %d txids answered as the node does %.2f s after 'listening'%n",
            expected.size(), (System.nanoTime() - listening) / 1e9);

        // a new transaction, then a new block: answered within 1 s of the node's RPC returning
        String sent = cli("sendtoaddress", addresses.get(1), "0.2");
        awaitAnswers(s, Map.of(sent, mempoolAnswer()), Duration.ofSeconds(1));
        cli("generatetoaddress", "1", addresses.get(0));
        Map<String, JsonNode> mined = nodeAnswers(List.of());
        awaitAnswers(s, mined, Duration.ofSeconds(1));
      }
    } finally {
      running.destroy(); // SIGTERM: bitcoind shuts down cleanly
      if (!running.waitFor(60, TimeUnit.SECONDS)) {
        running.destroyForcibly();
      }
    }
  }

  /** Every tx of the node's active chain (and {@code mempool}): what a lookup must answer. */
  private Map<String, JsonNode> nodeAnswers(List<String> mempool) throws Exception {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    int tip = Integer.parseInt(cli("getblockcount"));
    for (int h = 0; h <= tip; h++) {
      String hash = cli("getblockhash", Integer.toString(h));
      JsonNode block = JSON.readTree(cli("getblock", hash, "1"));
      for (JsonNode tx : block.path("tx")) {
        out.put(
            tx.asText(),
            JSON.createObjectNode()
                .put("status", "confirmed")
                .put("blockHash", hash)
                .put("height", h)
                .put("confirmations", tip - h + 1));
      }
    }
    for (JsonNode txid : JSON.readTree(cli("getrawmempool"))) {
      out.put(txid.asText(), mempoolAnswer());
    }
    for (String txid : mempool) {
      assertTrue(out.containsKey(txid), txid + " is neither mined nor in the node's mempool");
    }
    return out;
  }

  private static JsonNode mempoolAnswer() {
    return JSON.createObjectNode().put("status", "mempool");
  }

  /** Waits until every txid is answered with every field expected; fails naming the first not. */
  private static void awaitAnswers(
      Launcher.Server s, Map<String, JsonNode> expected, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    String wrong;
    do {
      wrong = firstWrong(s.baseUrl(), expected);
      if (wrong == null) {
        return;
      }
      Thread.sleep(10);
    } while (System.nanoTime() < deadline);
    throw new AssertionError(
        "not answered as the node does within "
            + within
            + ": "
            + wrong
            + "\nserver output:\n"
            + s.output());
  }

  private static String firstWrong(String base, Map<String, JsonNode> expected) throws Exception {
    for (Map.Entry<String, JsonNode> e : expected.entrySet()) {
      Http.Answer a = Http.get(base + "/v1/tx/" + e.getKey());
      for (var field : e.getValue().properties()) {
        if (a.status() != 200 || !a.body().path(field.getKey()).equals(field.getValue())) {
          return e.getKey() + " expected " + e.getValue() + ", got " + a.status() + " " + a.body();
        }
      }
    }
    return null;
  }

  /** bitcoin-cli as a user runs it: no arguments but the call; bitcoin.conf says the rest. */
  private String cli(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(cli.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("HOME", home.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("bitcoin-cli " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }

  /** The program an environment variable names; without it the test skips (fails under CI). */
  private static Path binary(String variable) {
    String v = System.getenv(variable);
    if (v == null || !Files.isExecutable(Path.of(v))) {
      RequiredTool.missing(variable + " is not set to an executable (see the README's Tests)");
    }
    return Path.of(v);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
