package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Private snapshots of a node's block index and txindex while the node mines with a small {@code
 * -dbcache} (frequent flushes) and restarts with {@code -forcecompactdb} (a full compaction of
 * every database at start: tables deleted and rewritten, a new MANIFEST and CURRENT, the log
 * replayed into a table, all while the snapshots copy): every snapshot opens and finds every tx of
 * its base block where the node says. Bounded to 30 s of snapshots.
 */
class LiveSnapshotUnderCompactionTest {
  private static final Duration RUN = Duration.ofSeconds(30);
  private static final List<String> COMPACTING = List.of("-forcecompactdb=1", "-dbcache=4");

  @TempDir Path tmp;

  @Test
  void snapshotsTakenWhileTheNodeMinesAndCompactsAlwaysOpenAndAnswer() throws Exception {
    try (RegtestNode node = TestNodes.start(false, RegtestNode.CURRENT)) {
      node.mine(150);
      node.rpc().call("gettxoutsetinfo"); // the block index on disk: something to snapshot
      Path datadir = node.datadir().resolve("regtest");
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger restarts = new AtomicInteger();
      CompletableFuture<Void> writer =
          CompletableFuture.runAsync(
              () -> {
                try {
                  while (!stop.get()) {
                    node.mine(5);
                    node.rpc().call("gettxoutsetinfo"); // writes the block index
                    node.stop();
                    node.restart(COMPACTING);
                    restarts.incrementAndGet();
                  }
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              });
      int snapshots = 0;
      int racedTableChanges = 0;
      long deadline = System.nanoTime() + RUN.toNanos();
      try {
        while (System.nanoTime() < deadline) {
          Set<String> before = tables(datadir);
          try (NodeIndex index = NodeIndex.open(datadir, tmp.resolve("work"), true)) {
            if (!before.equals(tables(datadir))) {
              racedTableChanges++;
            }
            assertAnswersAsTheNode(node, index);
          }
          snapshots++;
        }
      } finally {
        stop.set(true);
        writer.get(120, TimeUnit.SECONDS);
      }
      String debugLog = Files.readString(datadir.resolve("debug.log"));
      long compactions =
          debugLog.lines().filter(l -> l.contains("Finished database compaction")).count();
      System.out.printf(
          "%d snapshots during %d node restarts with -forcecompactdb (%d database compactions);"
              + " %d snapshots overlapped a change of the node's table files%n",
          snapshots, restarts.get(), compactions, racedTableChanges);
      assertTrue(snapshots >= 5, "snapshots taken: " + snapshots);
      assertTrue(compactions >= 2, "the node compacted its databases: " + compactions);
      assertTrue(restarts.get() >= 2, "restarts with -forcecompactdb: " + restarts.get());
    }
  }

  /** Every tx of the snapshot's base block is found there, as the node says. */
  private static void assertAnswersAsTheNode(RegtestNode node, NodeIndex index) throws Exception {
    SnapshotBase base = SnapshotBase.of(index);
    Hash32 nodeHash = Hash32.ofDisplayHex(call(node, "getblockhash", base.height()).asText());
    assertEquals(nodeHash, base.hash(), "the snapshot's base block at " + base.height());
    for (JsonNode t : call(node, "getblock", nodeHash.displayHex(), 1).path("tx")) {
      var loc =
          index
              .findTx(Hash32.ofDisplayHex(t.asText()).internal())
              .orElseThrow(() -> new AssertionError("tx " + t.asText() + " not in the snapshot"));
      assertEquals(base.height(), loc.block().height());
      assertEquals(t.asText(), loc.txidHex());
    }
  }

  /** An RPC call that waits for the node while it restarts. */
  private static JsonNode call(RegtestNode node, String method, Object... params)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        return node.rpc().call(method, params);
      } catch (IOException e) {
        // unreachable while it restarts, RPC up but still warming up (-28), or the cookie being
        // rewritten
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
      Thread.sleep(100);
    }
  }

  /** The table files of the node's block index and txindex right now. */
  private static Set<String> tables(Path datadir) throws IOException {
    try (Stream<Path> a = Files.list(datadir.resolve("blocks/index"));
        Stream<Path> b = Files.list(datadir.resolve("indexes/txindex"))) {
      return Stream.concat(a, b)
          .map(p -> p.getParent().getFileName() + "/" + p.getFileName())
          .filter(n -> n.endsWith(".ldb"))
          .collect(Collectors.toSet());
    }
  }
}
