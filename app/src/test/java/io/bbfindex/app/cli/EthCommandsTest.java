package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.demo.EmbeddedDemo;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.eth.testing.AnvilNode;
import io.bbfindex.ingest.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ingest --eth-rpc} and the Ethereum options' usage errors, through {@link Cli#run}. */
class EthCommandsTest {
  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Cli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new CoreChainAccess(),
            Optional.empty());
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void ingestWritesTheFinalRangesAndARerunAddsOnlyNewOnes() throws Exception {
    try (AnvilNode node = AnvilNode.start("--no-mining")) {
      node.sendTransfers(40);
      node.mine(70);
      Path out = dir.resolve("eth");
      Run first =
          run(
              "ingest",
              "--eth-rpc",
              node.url(),
              "--out",
              out.toString(),
              "--range-bits",
              "4",
              "--depth",
              "6");
      assertEquals(Cli.OK, first.code(), first.err());
      // Head 70, final block 64: ranges 0..3 (blocks 0..63) complete.
      assertTrue(first.out().contains("eth: 4 ranges of 16 blocks"), first.out());
      assertTrue(first.out().contains("40 transactions"), first.out());
      assertTrue(Files.exists(out.resolve("range-00000003.bbf")));
      assertTrue(Files.exists(out.resolve("range-00000003.txr")));
      assertTrue(Files.exists(out.resolve("summary.bbf")));

      node.mine(16);
      Run second =
          run(
              "ingest",
              "--eth-rpc",
              node.url(),
              "--out",
              out.toString(),
              "--range-bits",
              "4",
              "--depth",
              "6");
      assertEquals(Cli.OK, second.code(), second.err());
      assertTrue(
          second.out().contains("eth: 5 ranges of 16 blocks") && second.out().contains("(1 added"),
          second.out());

      Run otherSize =
          run(
              "ingest",
              "--eth-rpc",
              node.url(),
              "--out",
              out.toString(),
              "--range-bits",
              "5",
              "--depth",
              "6");
      assertEquals(Cli.FAILED, otherSize.code());
      assertTrue(otherSize.err().contains("ranges of 2^4 blocks"), otherSize.err());
    }
  }

  @Test
  void oneServerAnswersBitcoinFromADatadirAndEthereumFromANode() throws Exception {
    Path datadir = Fixtures.extract(Fixtures.Archive.MAINNET_LDB, dir);
    try (AnvilNode node = AnvilNode.start("--no-mining")) {
      String eth = node.sendTransfers(3).getFirst();
      node.mine(40);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ServeCommand.Started started =
          ServeCommand.start(
              List.of(
                  "--datadir",
                  datadir.toString(),
                  "--filters",
                  dir.resolve("btc").toString(),
                  "--eth-rpc",
                  node.url(),
                  "--port",
                  "0",
                  "--range-bits",
                  "4",
                  "--depth",
                  "8",
                  "--poll-ms",
                  "100"),
              new PrintStream(out, true, StandardCharsets.UTF_8),
              System.err,
              new CoreChainAccess(),
              Optional.empty());
      try (var service = started.service()) {
        assertTrue(
            Files.isDirectory(dir.resolve("btc-eth")),
            "the Ethereum store goes beside Bitcoin's by default");
        ApiClient api = new ApiClient(service.server().baseUrl());
        JsonNode btc = api.get("/v1/tx/" + EmbeddedDemo.PAYMENT_170).json();
        assertEquals(170, btc.get("height").asInt());
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (api.get("/readyz").status() != 200 && System.nanoTime() < deadline) {
          Thread.sleep(20); // /readyz waits for the Ethereum index as well
        }
        assertEquals(200, api.get("/readyz").status());
        JsonNode tx = api.get("/v1/eth/tx/" + eth).json();
        assertEquals("confirmed", tx.get("status").asText(), tx.toString());
        tools.jackson.databind.JsonNode receipt = node.call("eth_getTransactionReceipt", eth);
        assertEquals(1, tx.get("blockNumber").asInt());
        assertEquals(receipt.get("blockHash").asString(), tx.get("blockHash").asText());
        assertEquals(
            Long.decode(receipt.get("transactionIndex").asString()),
            tx.get("transactionIndex").asLong());
        assertTrue(tx.get("confirmations").asInt() >= 33, tx.toString());
        assertEquals(200, api.get("/v1/eth/status").status());
      }
    }
  }

  @Test
  void usageErrorsNameTheOption() {
    Run noOut = run("ingest", "--eth-rpc", "http://127.0.0.1:1");
    assertEquals(Cli.USAGE, noOut.code());
    assertTrue(noOut.err().contains("--out"), noOut.err());
    Run badUrl = run("ingest", "--eth-rpc", "ws://127.0.0.1:1", "--out", dir.toString());
    assertEquals(Cli.USAGE, badUrl.code());
    assertTrue(badUrl.err().contains("http://"), badUrl.err());
    Run unreachable = run("ingest", "--eth-rpc", "http://127.0.0.1:1", "--out", dir.toString());
    assertEquals(Cli.FAILED, unreachable.code());
    assertTrue(unreachable.err().contains("127.0.0.1:1"), unreachable.err());
    Run help = run("serve", "--eth-rpc", "http://x", "--help");
    assertEquals(Cli.OK, help.code());
    assertTrue(help.out().contains("/v1/eth/tx/"), help.out());
  }
}
