package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.cli.Cli;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.workdir.NodeDirectories;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --follow} over HTTP against a real running regtest node: history from a snapshot of
 * the running node, the blocks after it, the mempool, a reorg, {@code /v1/status} and the metrics.
 */
class ServeFollowTest {

  @TempDir Path tmp;

  @Test
  void answersHistoryTipMempoolAndStaleAsTheNodeDoesOverHttp() throws Exception {
    // The current build (hashed txindex): its snapshot holds 's' and 'x' rows of blocks the block
    // index has not flushed yet, which the tip layer answers for.
    try (RegtestNode node = TestNodes.start(true, RegtestNode.CURRENT)) {
      node.mine(110);
      Hash32 old = node.send("bech32", 1.0);
      node.mine(1);
      node.stop(); // Core writes its block index at shutdown: the snapshot will see height 111
      node.restart();
      try (FollowedServer server = FollowedServer.start(node, tmp)) {
        ApiClient api = server.api();

        JsonNode h = api.get("/v1/tx/" + old).json();
        assertEquals("confirmed", h.path("status").asText());
        assertEquals(1, h.path("confirmations").asInt());

        Hash32 fresh = node.send("bech32m", 0.5);
        JsonNode m = await(api, fresh, a -> a.path("status").asText().equals("mempool"));
        assertFalse(m.has("blockHash"), "a mempool answer has no block");

        Hash32 block = node.mine(1).getFirst();
        JsonNode c = await(api, fresh, a -> a.path("status").asText().equals("confirmed"));
        assertEquals(block.displayHex(), c.path("blockHash").asText());
        assertEquals(112, c.path("height").asInt());
        assertEquals(1, c.path("confirmations").asInt());
        assertTrue(c.has("file") && c.has("dataPos") && c.has("txOffset"), c.toString());
        assertEquals(
            2,
            await(api, old, a -> a.path("confirmations").asInt() == 2)
                .path("confirmations")
                .asInt(),
            "history answers count confirmations from the node's tip");

        // Block answers: the followed block and a history block, as getblockheader says.
        assertBlockAsTheNode(node, api, block);
        assertBlockAsTheNode(
            node, api, Hash32.ofDisplayHex(node.rpc().call("getblockhash", 111).asText()));
        assertTrue(api.get("/v1/block/" + block).json().path("file").asInt() >= 0, "located");

        // A reorg: the tx goes back to the mempool, the lost block's coinbase is only in a stale
        // block.
        String coinbase =
            node.rpc().call("getblock", block.displayHex(), 1).path("tx").get(0).asText();
        node.rpc().call("invalidateblock", block.displayHex());
        await(api, fresh, a -> a.path("status").asText().equals("mempool"));
        JsonNode s =
            await(
                api, Hash32.ofDisplayHex(coinbase), a -> a.path("status").asText().equals("stale"));
        assertEquals(block.displayHex(), s.path("blockHash").asText());
        // A tx only in a stale block: confirmations as getrawtransaction says (0), not as
        // getblockheader says of the block (-1).
        JsonNode nodeTx = node.rpc().call("getrawtransaction", coinbase, 1);
        assertEquals(block.displayHex(), nodeTx.path("blockhash").asText());
        assertEquals(0, nodeTx.get("confirmations").asInt(), "the node: " + nodeTx);
        assertEquals(
            -1,
            node.rpc().call("getblockheader", block.displayHex()).path("confirmations").asInt(),
            "the node's answer for the stale block itself");
        assertEquals(nodeTx.get("confirmations"), s.get("confirmations"), s.toString());
        assertBlockAsTheNode(node, api, block); // now stale: -1, off the active chain
        assertFalse(api.get("/v1/block/" + block).json().path("onActiveChain").asBoolean());
        // Its bytes: refused with a reason that says where it is, not "in the mempool".
        ApiClient.Answer hex = api.get("/v1/tx/" + coinbase + "/hex");
        assertEquals(404, hex.status(), hex.body());
        assertEquals("not_located", hex.json().path("error").asText(), hex.body());
        String why = hex.json().path("detail").asText();
        assertTrue(why.contains("stale block " + block.displayHex()), why);
        assertFalse(why.contains("mempool"), why);

        JsonNode batch =
            ApiClient.JSON.readTree(
                api.post(
                        "/v1/tx/lookup",
                        "[\"" + old + "\",\"" + fresh + "\",\"" + "ab".repeat(32) + "\"]")
                    .body());
        assertEquals("confirmed", batch.get(0).path("status").asText());
        assertEquals("mempool", batch.get(1).path("status").asText());
        assertFalse(batch.get(2).path("present").asBoolean());

        double readsBefore = api.metric("bbf_leveldb_reads_total");
        assertEquals(404, api.get("/v1/tx/" + "cd".repeat(32)).status());
        assertEquals(
            readsBefore, api.metric("bbf_leveldb_reads_total"), "a negative reads no store");

        JsonNode status = api.get("/v1/status").json();
        assertEquals("regtest", status.path("network").asText());
        // the node is Core 31.99 with the hashed txindex (BITCOIND): the follower says so too
        assertEquals("hashed", status.path("txindexLayout").asText(), status.toString());
        assertEquals(111, status.path("snapshotTip").path("height").asInt());
        assertEquals(111, status.path("servedTip").path("height").asInt());
        assertEquals(node.bestBlock().displayHex(), status.path("nodeTip").path("hash").asText());
        assertEquals("following", status.path("follow").path("state").asText());
        assertEquals(
            node.rpc().call("getmempoolinfo").path("size").asInt(),
            status.path("mempoolSize").asInt());
        assertEquals(1, api.metric("bbf_follow_blocks_disconnected_total"));
        assertEquals(1, api.metric("bbf_follow_state", java.util.Map.of("state", "following")));
      }
    }
  }

  /** {@code GET /v1/block/{hash}} has the fields of the node's {@code getblockheader}. */
  private static void assertBlockAsTheNode(RegtestNode node, ApiClient api, Hash32 hash)
      throws java.io.IOException {
    JsonNode n = node.rpc().call("getblockheader", hash.displayHex());
    JsonNode a = api.get("/v1/block/" + hash).json();
    String ctx = "node " + n + ", served " + a;
    assertTrue(a.path("present").asBoolean(), ctx);
    assertEquals(n.path("height").asInt(), a.path("height").asInt(), ctx);
    assertEquals(n.path("confirmations").asInt(), a.path("confirmations").asInt(), ctx);
    assertEquals(n.path("nTx").asInt(), a.path("nTx").asInt(), ctx);
    assertEquals(n.path("version").asInt(), a.path("version").asInt(), ctx);
    assertEquals(n.path("previousblockhash").asText(), a.path("prevHash").asText(), ctx);
    assertEquals(n.path("merkleroot").asText(), a.path("merkleRoot").asText(), ctx);
    assertEquals(n.path("time").asLong(), a.path("time").asLong(), ctx);
    assertEquals(n.path("bits").asText(), a.path("bits").asText(), ctx);
    assertEquals(n.path("nonce").asLong(), a.path("nonce").asLong(), ctx);
  }

  private static JsonNode await(ApiClient api, Hash32 txid, Predicate<JsonNode> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    JsonNode last;
    do {
      last = api.get("/v1/tx/" + txid).json();
      if (done.test(last)) {
        return last;
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("no such answer for " + txid + " within 5 s; last " + last);
  }

  @Test
  void theNodesDataDirectoryIsNeverWrittenBySnapshotAndFollowAndAStoppedNodeIsShown()
      throws Exception {
    try (RegtestNode node = TestNodes.start(true, RegtestNode.CURRENT)) {
      node.mine(105);
      node.send("legacy", 1.0);
      node.mine(1);
      node.stop();
      Path datadir = node.datadir().resolve("regtest");
      Map<Path, String> before = contents(node.datadir());
      FollowOptions options =
          new FollowOptions(node.rpc().endpoint().toString(), null, null, null, null, 0);
      try (var backend =
          FollowServe.open(
              NodeDirectories.resolve(datadir, null),
              tmp.resolve("filters"),
              tmp.resolve("work"),
              0.01,
              options,
              System.err)) {
        FollowingBackend following = (FollowingBackend) backend;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (following.follower().status().state() != FollowState.NODE_UNREACHABLE
            && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertEquals(FollowState.NODE_UNREACHABLE, following.follower().status().state());
        assertEquals(
            "node unreachable",
            backend.status().get("follow") instanceof Map<?, ?> f ? f.get("state") : null);
        assertEquals(106, backend.tipHeight(), "answers from the snapshot while the node is away");
      }
      assertEquals(
          before,
          contents(node.datadir()),
          "every file of the node's datadir unchanged, none added");

      // bbf-index holds none of the node's locks: the node starts under a running follower (Core
      // opens its txindex at start) and the follower takes it up by itself.
      try (var backend =
          FollowServe.open(
              NodeDirectories.resolve(datadir, null),
              tmp.resolve("filters"),
              tmp.resolve("work"),
              0.01,
              options,
              System.err)) {
        node.restart();
        assertEquals(
            FollowState.FOLLOWING, FollowServe.awaitFollowing(backend, Duration.ofSeconds(30)));
        Hash32 block = node.mine(1).getFirst();
        assertTrue(((FollowingBackend) backend).follower().awaitTip(block, Duration.ofSeconds(10)));
      }
    }
  }

  /** Every regular file under {@code dir} with the SHA-256 of its bytes. */
  private static Map<Path, String> contents(Path dir) throws Exception {
    Map<Path, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p));
        out.put(dir.relativize(p), HexFormat.of().formatHex(digest));
      }
    }
    return out;
  }

  @Test
  void aRefreshSwapsInANewSnapshotWhileLookupsNeverMissOrDoubleATx() throws Exception {
    try (RegtestNode node = TestNodes.start(true, RegtestNode.CURRENT)) {
      node.mine(110);
      node.stop();
      node.restart();
      try (FollowingBackend backend = FollowedServer.open(node, tmp, 3)) {
        assertEquals(
            FollowState.FOLLOWING, FollowServe.awaitFollowing(backend, Duration.ofSeconds(30)));
        java.util.List<Hash32> sent = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
          sent.add(node.send(i % 2 == 0 ? "bech32" : "legacy", 0.3));
          sent.add(node.mine(1).getFirst()); // a block hash: never a txid, must stay unknown
        }
        Hash32 tip = node.bestBlock();
        assertTrue(backend.follower().awaitTip(tip, Duration.ofSeconds(10)));
        Map<Hash32, String> expected = new java.util.HashMap<>();
        for (Hash32 t : sent) {
          expected.put(t, answerOf(node, t));
        }
        java.util.concurrent.atomic.AtomicBoolean stop =
            new java.util.concurrent.atomic.AtomicBoolean();
        java.util.List<String> wrong =
            java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicLong lookups =
            new java.util.concurrent.atomic.AtomicLong();
        Thread reader =
            Thread.ofPlatform()
                .start(
                    () -> {
                      while (!stop.get()) {
                        for (Hash32 t : sent) {
                          String got =
                              backend.txMaybe(t.internal(), 0)
                                  ? backend
                                      .lookupTx(t.internal())
                                      .map(
                                          a ->
                                              a.status().json()
                                                  + " "
                                                  + Hash32.ofInternal(a.blockHash()).displayHex()
                                                  + " "
                                                  + a.confirmations())
                                      .orElse("unknown")
                                  : "unknown";
                          if (!got.equals(expected.get(t))) {
                            wrong.add(t + ": " + got + ", node " + expected.get(t));
                          }
                          lookups.incrementAndGet();
                        }
                      }
                    });
        // gettxoutsetinfo makes Core write its state (block index included) and the txindex commit
        // its position, which it does a moment later on its own thread: try until the snapshot
        // taken is complete to the tip.
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        do {
          node.rpc().call("gettxoutsetinfo");
          Thread.sleep(100);
          backend.refresh().refreshNow();
        } while (backend.follower().status().snapshotTipHeight() < 114
            && System.nanoTime() < deadline);
        Thread.sleep(200);
        stop.set(true);
        reader.join();
        assertEquals(
            java.util.List.of(), wrong, "no lookup missed or misplaced a tx during the refresh");
        assertTrue(lookups.get() > 100, "lookups ran during the refresh: " + lookups.get());
        assertEquals(114, backend.follower().status().snapshotTipHeight());
        assertEquals(0, backend.follower().servedTipHeight() - 114, "the new tip layer is empty");
        assertTrue((Long) ((Map<?, ?>) backend.status().get("follow")).get("refreshes") >= 1);
        Hash32 more = node.send("bech32m", 0.2);
        Hash32 block = node.mine(1).getFirst();
        assertTrue(backend.follower().awaitTip(block, Duration.ofSeconds(10)));
        for (Hash32 t : List.of(sent.get(0), sent.get(6), more)) {
          assertEquals(
              answerOf(node, t),
              backend
                  .lookupTx(t.internal())
                  .map(
                      a ->
                          a.status().json()
                              + " "
                              + Hash32.ofInternal(a.blockHash()).displayHex()
                              + " "
                              + a.confirmations())
                  .orElse("unknown"));
        }
      }
    }
  }

  private static String answerOf(RegtestNode node, Hash32 txid) throws Exception {
    try {
      JsonNode tx = node.rpc().call("getrawtransaction", txid.displayHex(), 1);
      return "confirmed " + tx.path("blockhash").asText() + " " + tx.path("confirmations").asInt();
    } catch (io.bbfindex.follow.node.RpcException e) {
      return "unknown";
    }
  }

  /** Runs the command line; asserts it is a usage error and returns what it said. */
  private String usageError(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(Cli.USAGE, Cli.run(args, out, e, new CoreChainAccess(), tmp));
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void followingAPruningNodeIsRefusedNotServedWithFalse404s() throws Exception {
    // the follower keeps no fingerprints of the blocks the node deletes: refused before anything
    // is opened, with the way out in the message
    Path dd = Files.createDirectories(tmp.resolve("pruning/blocks")).getParent();
    Files.writeString(dd.resolve("bitcoin.conf"), "server=1\nprune=550\n");
    String refused =
        usageError(
            "serve",
            "--follow",
            "--datadir",
            dd.toString(),
            "--filters",
            tmp.resolve("pruning-filters").toString());
    assertTrue(refused.contains("--follow beside a pruning node"), refused);
    assertTrue(refused.contains("without --follow"), refused);
    assertTrue(Files.notExists(tmp.resolve("pruning-filters")), "nothing was built");
  }

  @Test
  void followOptionsAreCheckedBeforeAnythingIsOpened() throws Exception {
    Files.createDirectories(tmp.resolve("dd/blocks"));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertEquals(
        Cli.USAGE, Cli.run(new String[] {"serve", "--follow"}, out, e, new CoreChainAccess(), tmp));
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("--follow needs the --datadir"),
        err.toString(java.nio.charset.StandardCharsets.UTF_8));
    err.reset();
    assertEquals(
        Cli.USAGE,
        Cli.run(
            new String[] {
              "serve",
              "--follow",
              "--datadir",
              tmp.resolve("dd").toString(),
              "--filters",
              tmp.resolve("f").toString(),
              "--rpc-user",
              "u"
            },
            out,
            e,
            new CoreChainAccess(),
            tmp));
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("--rpc-user and --rpc-password go together"),
        err.toString(java.nio.charset.StandardCharsets.UTF_8));
    err.reset();
    // the password from a file (not visible in ps): one source only, and the file must exist
    String dd = tmp.resolve("dd").toString();
    String missing = tmp.resolve("no-such-password").toString();
    String both =
        usageError(
            "serve",
            "--follow",
            "--datadir",
            dd,
            "--rpc-user",
            "u",
            "--rpc-password",
            "p",
            "--rpc-password-file",
            missing);
    assertTrue(both.contains("not both"), both);
    String absent =
        usageError(
            "serve",
            "--follow",
            "--datadir",
            dd,
            "--rpc-user",
            "u",
            "--rpc-password-file",
            missing);
    assertTrue(absent.contains(missing + " does not exist"), absent);
    assertEquals(
        Cli.USAGE,
        Cli.run(new String[] {"serve", "--zmq", "tcp://x:1"}, out, e, new CoreChainAccess(), tmp));
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("unknown option --zmq"),
        "follow options need --follow");
  }
}
