package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.bitcoincore.TxIndexChoice;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26, acceptance: {@code serve --follow} beside a running regtest node WITHOUT {@code
 * -txindex} (lookups from the own index), blocks mined with transactions of every address type and
 * reorgs ({@code invalidateblock}) while following: every txid of every block the node has answers
 * as {@code getrawtransaction <txid> 1 <blockhash>} reports it within 1 s of the block, random
 * txids 404. History refreshes in between move the followed blocks into the own index as part files
 * and merge them; none is a full rebuild.
 */
class OwnIndexFollowTest {

  private static final String[] TYPES = {"legacy", "p2sh-segwit", "bech32", "bech32m"};

  @TempDir Path tmp;

  @Test
  void followingANodeWithoutTxindexAnswersEveryTxidAsTheNodeWithinOneSecond() throws Exception {
    try (RegtestNode node =
        RegtestNode.start(
            TestNodes.binaryOrSkip(RegtestNode.CURRENT), true, List.of("-txindex=0"))) {
      assertFalse(Files.exists(node.datadir().resolve("regtest/indexes/txindex")));
      node.mine(110);
      for (String t : TYPES) {
        node.send(t, 0.3);
      }
      node.mine(1);
      node.stop(); // the block index on disk: the history snapshot has these blocks
      node.restart(List.of("-txindex=0"));

      ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
      PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
      FollowingBackend backend =
          FollowedServer.open(node, tmp, 10_000, TxIndexChoice.AUTO, log); // refreshed by hand
      try (Service service =
          Service.start(
              backend,
              new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
              HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
        assertEquals(
            FollowState.FOLLOWING, FollowServe.awaitFollowing(backend, Duration.ofSeconds(30)));
        ApiClient api = new ApiClient(service.server().baseUrl());
        assertEquals("own", api.get("/v1/status").json().path("txindexSource").asText());
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("own txid index built"));

        // the history's txids first (and the server warmed up: the rounds time the follower)
        assertEquals(
            List.of(),
            NodeAnswers.awaitAgreement(
                api,
                NodeAnswers.expected(node, NodeAnswers.everyTxid(node)),
                Duration.ofSeconds(5)));
        Random random = new Random(2026_26L);
        int refreshes = 0;
        for (int round = 0; round < 12; round++) {
          List<Hash32> changed = new ArrayList<>();
          for (int i = 0; i <= round % 3; i++) {
            changed.add(node.send(TYPES[random.nextInt(TYPES.length)], (1 + round) / 100.0));
          }
          if (round % 4 == 3) {
            Hash32 tip = node.bestBlock();
            changed.addAll(NodeAnswers.txids(node, tip.displayHex()));
            node.rpc().call("invalidateblock", tip.displayHex()); // its txs back to the mempool
            node.mine(2);
          } else {
            node.mine(1 + random.nextInt(2));
          }
          changed.addAll(NodeAnswers.txids(node, node.bestBlock().displayHex()));
          Map<String, String> expected = NodeAnswers.expected(node, changed);
          long start = System.nanoTime();
          List<String> wrong = NodeAnswers.awaitAgreement(api, expected, Duration.ofSeconds(1));
          assertEquals(List.of(), wrong, "round " + round + ": answers within 1 s of the block");
          System.out.printf(
              "round %d: %d txids answered as the node in %.0f ms%n",
              round, expected.size(), (System.nanoTime() - start) / 1e6);
          if (round % 2 == 1) {
            refreshes += refresh(node, backend) ? 1 : 0;
          }
        }
        Map<String, String> all = NodeAnswers.expected(node, NodeAnswers.everyTxid(node));
        assertEquals(
            List.of(), NodeAnswers.awaitAgreement(api, all, Duration.ofSeconds(1)), "every txid");
        Random rnd = new Random(26);
        for (int i = 0; i < 200; i++) {
          byte[] t = new byte[32];
          rnd.nextBytes(t);
          assertEquals(404, api.get("/v1/tx/" + HexFormat.of().formatHex(t)).status());
        }
        String text = logBytes.toString(StandardCharsets.UTF_8);
        System.out.print(text);
        assertTrue(refreshes >= 2, refreshes + " refreshes");
        assertTrue(text.contains("own txid index part "), "the refreshes added part files");
        assertTrue(text.contains("parts merged into"), "and merged them");
        assertEquals(
            1, text.split("own txid index built", -1).length - 1, "one full build: the first");
        System.out.printf(
            "%d txids answered as the node; %d refreshes, own index files %s%n",
            all.size(), refreshes, ownFiles());
      } finally {
        backend.close();
      }
    }
  }

  /** Has Core write its block index, then refreshes the history until its snapshot has it. */
  private static boolean refresh(RegtestNode node, FollowingBackend backend) throws Exception {
    int tip = node.rpc().call("getblockcount").asInt();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    HistoryRefresh refresh = backend.refresh();
    assertTrue(refresh != null, "refresh configured");
    do {
      node.rpc().call("gettxoutsetinfo");
      Thread.sleep(100);
      refresh.refreshNow();
    } while (backend.follower().status().snapshotTipHeight() < tip && System.nanoTime() < deadline);
    return backend.follower().status().snapshotTipHeight() >= tip;
  }

  private List<String> ownFiles() throws IOException {
    try (Stream<Path> s = Files.list(tmp.resolve("filters"))) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("own-txindex"))
          .sorted()
          .toList();
    }
  }
}
