package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.workdir.SnapshotDirectories;
import io.bbfindex.follow.node.RpcException;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 section 7: {@code kill -9} of {@code serve --follow} at 10 seeded random moments while
 * the node mines, takes transactions and reorgs; after each restart every answer matches the node
 * again, from durable state (the filter store and the node), with no full rebuild.
 */
class ServeFollowCrashTest {
  private static final int MOMENTS = 10;

  @TempDir Path tmp;

  @Test
  void killMinusNineAtRandomMomentsThenRestartAnswersAsTheNode() throws Exception {
    try (RegtestNode node = TestNodes.start(true, RegtestNode.CURRENT)) {
      node.mine(110);
      node.stop(); // Core writes its block index at shutdown: the history snapshot has 110 blocks
      node.restart();
      Random random = new Random(20261123L);
      Set<Hash32> seen = new LinkedHashSet<>();
      for (int moment = 0; moment < MOMENTS; moment++) {
        Child serve = Child.start(node, tmp);
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Void> activity =
            CompletableFuture.runAsync(() -> churn(node, random.nextLong(), stop, seen));
        Thread.sleep(random.nextInt(1_500));
        serve.process.destroyForcibly(); // SIGKILL
        serve.process.waitFor(10, TimeUnit.SECONDS);
        stop.set(true);
        activity.get(60, TimeUnit.SECONDS);

        long start = System.nanoTime();
        Child again = Child.start(node, tmp);
        try {
          long listening = System.nanoTime();
          awaitAgreement(node, new ApiClient(again.base), seen, Duration.ofSeconds(20));
          // The killed serve's snapshot directory is gone; the live one's stays, even when
          // another process looks for stale ones.
          assertEquals(1, snapshotDirectories(tmp).size(), "only the live serve's snapshots");
          assertEquals(List.of(), SnapshotDirectories.removeStale(tmp.resolve("work")));
          assertEquals(1, snapshotDirectories(tmp).size());
          System.out.printf(
              "kill -9 at moment %d: restart to listening %.0f ms, to correct answers %.0f ms (%d"
                  + " txids)%n",
              moment, (listening - start) / 1e6, (System.nanoTime() - start) / 1e6, seen.size());
        } finally {
          again.process.destroyForcibly().waitFor();
        }
      }
      // A serve stopped by SIGTERM deletes its snapshots itself (shutdown hook).
      Child last = Child.start(node, tmp);
      assertEquals(1, snapshotDirectories(tmp).size(), "the killed serve's snapshots removed");
      last.process.destroy();
      assertTrue(last.process.waitFor(30, TimeUnit.SECONDS));
      assertEquals(List.of(), snapshotDirectories(tmp), "nothing left after SIGTERM");
    }
  }

  /** The claimed snapshot directories in the serves' --work, and any NodeIndex snapshot. */
  private static List<Path> snapshotDirectories(Path tmp) throws IOException {
    try (Stream<Path> s = Files.list(tmp.resolve("work"))) {
      return s.filter(
              p ->
                  p.getFileName().toString().startsWith(SnapshotDirectories.PREFIX)
                      || p.getFileName().toString().startsWith("node-snapshot-"))
          .toList();
    }
  }

  /** Mines, sends and now and then reorgs the tip by one block, until {@code stop}. */
  private static void churn(RegtestNode node, long seed, AtomicBoolean stop, Set<Hash32> seen) {
    Random r = new Random(seed);
    try {
      while (!stop.get()) {
        synchronized (seen) {
          seen.add(node.send(r.nextBoolean() ? "bech32" : "legacy", 0.01));
        }
        if (r.nextInt(4) == 0) {
          Hash32 tip = node.bestBlock();
          synchronized (seen) {
            for (JsonNode t : node.rpc().call("getblock", tip.displayHex(), 1).path("tx")) {
              seen.add(Hash32.ofDisplayHex(t.asText()));
            }
          }
          node.rpc().call("invalidateblock", tip.displayHex());
          node.mine(2);
        } else {
          node.mine(1);
        }
        Thread.sleep(r.nextInt(100));
      }
    } catch (IOException | InterruptedException e) {
      throw new RuntimeException(e);
    }
  }

  private static void awaitAgreement(
      RegtestNode node, ApiClient api, Set<Hash32> seen, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    List<String> differences;
    do {
      differences = differences(node, api, seen);
      if (differences.isEmpty()) {
        return;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    fail(
        differences.size()
            + " txids answered unlike the node, e.g. "
            + differences.subList(0, Math.min(5, differences.size()))
            + "; status "
            + api.get("/v1/status").body());
  }

  private static List<String> differences(RegtestNode node, ApiClient api, Set<Hash32> seen)
      throws IOException {
    Set<Hash32> all;
    synchronized (seen) {
      all = new LinkedHashSet<>(seen);
    }
    int height = node.rpc().call("getblockcount").asInt();
    for (int h = 1; h <= height; h++) {
      for (JsonNode t :
          node.rpc().call("getblock", node.rpc().call("getblockhash", h).asText(), 1).path("tx")) {
        all.add(Hash32.ofDisplayHex(t.asText()));
      }
    }
    for (JsonNode t : node.rpc().call("getrawmempool")) {
      all.add(Hash32.ofDisplayHex(t.asText()));
    }
    List<String> out = new ArrayList<>();
    for (Hash32 txid : all) {
      String expected = nodeSays(node, txid);
      JsonNode a = api.get("/v1/tx/" + txid).json();
      String actual =
          switch (a.path("status").asText("unknown")) {
            case "confirmed" ->
                "confirmed " + a.path("blockHash").asText() + " " + a.path("confirmations").asInt();
            case "stale" -> "stale " + a.path("blockHash").asText() + " " + a.get("confirmations");
            case "mempool" -> "mempool";
            default -> "unknown";
          };
      if (!expected.equals(actual)) {
        out.add(txid + ": node " + expected + ", served " + actual);
      }
    }
    return out;
  }

  private static String nodeSays(RegtestNode node, Hash32 txid) throws IOException {
    JsonNode tx;
    try {
      tx = node.rpc().call("getrawtransaction", txid.displayHex(), 1);
    } catch (RpcException e) {
      if (e.code() == RpcException.NOT_FOUND) {
        return "unknown";
      }
      throw e;
    }
    if (!tx.hasNonNull("blockhash")) {
      return "mempool";
    }
    int c = tx.path("confirmations").asInt();
    return c > 0
        ? "confirmed " + tx.path("blockhash").asText() + " " + c
        : "stale " + tx.path("blockhash").asText() + " " + tx.get("confirmations");
  }

  /** {@code serve --follow} in a child JVM, started until it prints where it listens. */
  private record Child(Process process, String base) {
    static Child start(RegtestNode node, Path tmp) throws IOException, InterruptedException {
      List<String> cmd =
          ServeChildCommand.of(
              node, tmp, List.of(), List.of("--follow", "--rpc", node.rpc().endpoint().toString()));
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<String> base =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith("listening on ")) {
                      // "listening on http://HOST:PORT (TRANSPORT)"
                      return line.substring("listening on ".length()).split(" ", 2)[0];
                    }
                  }
                  return null;
                } catch (IOException e) {
                  return null;
                }
              });
      try {
        String url = base.get(60, TimeUnit.SECONDS);
        assertTrue(url != null, "serve --follow exited before listening");
        Thread.ofVirtual().start(() -> out.lines().forEach(l -> {})); // keep its stdout drained
        return new Child(p, url);
      } catch (Exception e) {
        p.destroyForcibly().waitFor();
        throw new IOException("serve --follow did not start", e);
      }
    }
  }
}
