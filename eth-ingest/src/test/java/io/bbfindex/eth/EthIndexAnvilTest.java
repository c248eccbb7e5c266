package io.bbfindex.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.eth.testing.AnvilNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/** The index against a real anvil: exact answers from history and tip, reorgs, pending. */
class EthIndexAnvilTest {
  private static final int RANGE_BITS = 4;

  @TempDir Path dir;

  private static EthConfig config(AnvilNode node, Path store, int depth) {
    return EthConfig.of(node.url(), store)
        .withRangeBits(RANGE_BITS)
        .withFinalityDepth(depth)
        .withPoll(Duration.ofMillis(100));
  }

  /**
   * Sends {@code perBlock} transfers and mines one block, {@code blocks} times; returns the hashes.
   */
  private static List<String> fill(AnvilNode node, int blocks, int perBlock) throws Exception {
    List<String> hashes = new ArrayList<>();
    for (int b = 0; b < blocks; b++) {
      hashes.addAll(node.sendTransfers(perBlock));
      node.mine(1);
    }
    return hashes;
  }

  private static byte[] key(String hash) {
    return TxHash.parse(hash).toBytes();
  }

  /** Asserts that the index places every hash where the node's receipt does. */
  private static void assertExact(AnvilNode node, EthIndex index, List<String> hashes)
      throws Exception {
    List<Object[]> params = new ArrayList<>();
    hashes.forEach(h -> params.add(new Object[] {h}));
    List<JsonNode> receipts = node.batch("eth_getTransactionReceipt", params);
    for (int i = 0; i < hashes.size(); i++) {
      JsonNode r = receipts.get(i);
      Optional<EthAnswer> a = index.lookup(key(hashes.get(i)), 0);
      assertTrue(a.isPresent(), "index does not know " + hashes.get(i));
      assertEquals(EthAnswer.Status.CONFIRMED, a.get().status());
      assertEquals(
          Long.decode(r.get("blockNumber").asString()),
          a.get().location().blockNumber(),
          hashes.get(i));
      assertEquals(
          r.get("blockHash").asString(), a.get().location().blockHash().hex(), hashes.get(i));
      assertEquals(
          Long.decode(r.get("transactionIndex").asString()),
          a.get().location().transactionIndex(),
          hashes.get(i));
    }
  }

  @Test
  void historyAndTipAnswerEveryHashExactlyAndMissesCostNoCall() throws Exception {
    try (AnvilNode node = AnvilNode.start("--no-mining")) {
      List<String> hashes = fill(node, 50, 12);
      node.mine(20);
      Path store = dir.resolve("eth");
      try (EthIndex index = EthIndex.open(config(node, store, 8))) {
        int ranges = index.ingestFinalRanges(line -> {});
        long head = node.blockNumber();
        assertEquals((head - 8 + 1) >> RANGE_BITS, ranges);
        index.poll();
        assertTrue(index.caughtUp());
        assertEquals(head, index.servedTip());
        assertExact(node, index, hashes);

        long before = index.rpcCalls().total();
        SplittableRandom random = new SplittableRandom(13);
        byte[] absent = new byte[32];
        for (int i = 0; i < 5_000; i++) {
          random.nextBytes(absent);
          assertTrue(index.lookup(absent, 0).isEmpty());
        }
        assertEquals(before, index.rpcCalls().total(), "a miss must not call the node");
      }
      assertTrue(Files.exists(store.resolve(History.SUMMARY)));

      // Reopened from disk: before any poll, the history ranges answer (without the node), and
      // every other hash is refused as "catching up", never called absent.
      try (EthIndex reopened = EthIndex.open(config(node, store, 8))) {
        long calls = reopened.rpcCalls().total();
        long finalBlocks = (long) reopened.status().ranges() << RANGE_BITS;
        assertTrue(finalBlocks > 0);
        int inHistory = 0;
        int refused = 0;
        for (String h : hashes) {
          try {
            assertTrue(
                reopened.lookup(key(h), 0).orElseThrow().location().blockNumber() < finalBlocks);
            inHistory++;
          } catch (EthIndex.CatchingUpException e) {
            refused++;
          }
        }
        assertEquals(calls, reopened.rpcCalls().total(), "lookups never call the node");
        assertEquals(hashes.size(), inHistory + refused);
        assertTrue(inHistory > hashes.size() / 2, inHistory + " of " + hashes.size());
        byte[] absent = new byte[32];
        new SplittableRandom(5).nextBytes(absent);
        assertThrows(EthIndex.CatchingUpException.class, () -> reopened.lookup(absent, 0));
        reopened.poll();
        assertExact(node, reopened, hashes);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 10})
  void reorgRemovesTheOldBlocksAndAnswersReminedTransactionsFromTheNewOnes(int depth)
      throws Exception {
    try (AnvilNode node = AnvilNode.start("--no-mining")) {
      List<String> hashes = fill(node, 24, 5);
      try (EthIndex index = EthIndex.open(config(node, dir.resolve("eth"), 12))) {
        index.poll();
        long head = node.blockNumber();
        // The transactions of the blocks the reorg removes; those of the first removed block are
        // mined again (their nonces follow the kept chain), the others are dropped.
        List<String> remined = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        List<Object> reorgTxs = new ArrayList<>();
        for (long n = head - depth + 1; n <= head; n++) {
          JsonNode block = node.call("eth_getBlockByNumber", "0x" + Long.toHexString(n), false);
          for (JsonNode tx : block.get("transactions")) {
            String h = tx.asString();
            if (n == head - depth + 1) {
              remined.add(h);
              String raw = node.call("eth_getRawTransactionByHash", h).asString();
              reorgTxs.add(List.of(raw, 0));
            } else {
              dropped.add(h);
            }
          }
        }
        String oldHash =
            index.lookup(key(remined.getFirst()), 0).orElseThrow().location().blockHash().hex();
        node.call("anvil_reorg", depth, reorgTxs);
        index.poll();
        assertTrue(index.status().reorgs() >= depth, "reorgs " + index.status().reorgs());
        assertEquals(node.blockNumber(), index.servedTip());
        for (String h : dropped) {
          assertTrue(node.call("eth_getTransactionByHash", h).isNull(), "anvil still knows " + h);
          assertTrue(index.lookup(key(h), 0).isEmpty(), h + " was reorged out");
        }
        assertExact(node, index, remined);
        assertTrue(
            !oldHash.equals(
                index
                    .lookup(key(remined.getFirst()), 0)
                    .orElseThrow()
                    .location()
                    .blockHash()
                    .hex()));
        List<String> kept = new ArrayList<>(hashes);
        kept.removeAll(dropped);
        kept.removeAll(remined);
        assertExact(node, index, kept);
      }
    }
  }

  @Test
  void pendingThenConfirmedWithinOneSecondOfMining() throws Exception {
    try (AnvilNode node = AnvilNode.start("--no-mining")) {
      fill(node, 3, 2);
      try (EthIndex index = EthIndex.open(config(node, dir.resolve("eth"), 2))) {
        index.poll();
        index.startFollowing();
        String hash = node.sendTransfers(1).getFirst();
        Optional<EthAnswer> a = await(index, hash, EthAnswer.Status.PENDING, Duration.ofSeconds(1));
        assertEquals(EthAnswer.Status.PENDING, a.orElseThrow().status());
        node.mine(1);
        long mined = System.nanoTime();
        a = await(index, hash, EthAnswer.Status.CONFIRMED, Duration.ofSeconds(1));
        long took = (System.nanoTime() - mined) / 1_000_000;
        assertEquals(
            EthAnswer.Status.CONFIRMED,
            a.orElseThrow().status(),
            "not confirmed after " + took + " ms");
        assertEquals(node.blockNumber(), a.get().location().blockNumber());
        assertEquals(1, a.get().confirmations());
        assertTrue(took <= 1_000, took + " ms");
      }
    }
  }

  /**
   * Polled by hand, or followed (where a negative skips the clock while the last good poll is
   * recent): once polls fail and the last good one is old, "absent" is refused.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aNodeOutOfReachStopsAbsentAnswersButNotTheOnesTheIndexHolds(boolean following)
      throws Exception {
    AnvilNode node = AnvilNode.start("--no-mining");
    String hash = fill(node, 2, 3).getFirst();
    try (EthIndex index = EthIndex.open(config(node, dir.resolve("eth"), 1))) {
      index.poll();
      if (following) {
        index.startFollowing();
      }
      byte[] absent = new byte[32];
      new SplittableRandom(3).nextBytes(absent);
      assertTrue(index.lookup(absent, 0).isEmpty());
      node.close();
      if (following) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (index.lastError() == null && System.nanoTime() < deadline) {
          Thread.sleep(20); // until a poll failed: none in flight can succeed after this
        }
        assertTrue(index.lastError() != null, "the follower's polls fail without the node");
      } else {
        assertThrows(EthRpcException.class, index::poll);
      }
      index.pretendLastGoodPollWas(System.nanoTime() - EthIndex.STALE_AFTER_NANOS - 1);
      EthIndex.CatchingUpException e =
          assertThrows(EthIndex.CatchingUpException.class, () -> index.lookup(absent, 0));
      assertTrue(e.getMessage().contains("not been reached"), e.getMessage());
      assertEquals(EthAnswer.Status.CONFIRMED, index.lookup(key(hash), 0).orElseThrow().status());
    } finally {
      node.close();
    }
  }

  /**
   * Issue 28 point 5: the node is killed and another one, of another chain id, starts on its port.
   * From the first poll against it, no hash the index holds is answered (confirmed, pending or
   * absent): every lookup is refused with the reason, which status and {@code lastError} show; the
   * history is not extended with the other chain's blocks, and when the first chain's node is back
   * the index answers again. Before the fix the old chain's hashes stayed "confirmed", and the
   * follower failed with a null message.
   */
  @Test
  void aNodeReplacedByAnotherChainIsNoticedAndNothingOfTheOldChainIsConfirmed() throws Exception {
    AnvilNode first = AnvilNode.start("--no-mining");
    int port = first.port();
    List<String> old = fill(first, 40, 2);
    first.mine(90);
    try (EthIndex index = EthIndex.open(config(first, dir.resolve("eth"), 8))) {
      index.ingestFinalRanges(line -> {});
      index.poll();
      assertTrue(index.caughtUp());
      assertTrue(index.status().ranges() > 0, "some blocks are final history");
      for (String h : old) {
        assertEquals(EthAnswer.Status.CONFIRMED, index.lookup(key(h), 0).orElseThrow().status());
      }
      int ranges = index.status().ranges();
      first.close();
      try (AnvilNode second = AnvilNode.startOnPort(port, "--no-mining", "--chain-id", "4242")) {
        List<String> fresh = fill(second, 40, 1);
        // The first poll may fail on a connection pooled to the old node; none may succeed.
        EthRpcException failed = assertThrows(EthRpcException.class, index::poll);
        for (int i = 0; i < 5 && index.chainReplaced() == null; i++) {
          failed = assertThrows(EthRpcException.class, index::poll);
        }
        assertTrue(failed.getMessage().contains("chain id 4242"), failed.getMessage());
        assertEquals(failed.getMessage(), index.chainReplaced());
        for (String h : old) {
          EthIndex.CatchingUpException e =
              assertThrows(
                  EthIndex.ChainReplacedException.class,
                  () -> index.lookup(key(h), 0),
                  "an old-chain hash must not be answered");
          assertTrue(e.getMessage().contains("chain replaced"), e.getMessage());
        }
        for (String h : fresh) {
          assertThrows(EthIndex.ChainReplacedException.class, () -> index.lookup(key(h), 0));
        }
        byte[] absent = new byte[32];
        new SplittableRandom(7).nextBytes(absent);
        assertThrows(EthIndex.ChainReplacedException.class, () -> index.lookup(absent, 0));
        assertThrows(EthRpcException.class, index::poll); // and again: it stays refused
        assertEquals(ranges, index.status().ranges(), "no block of the other chain is stored");
      }
    } finally {
      first.close();
    }
  }

  /**
   * The same with the follower thread: the failure is logged once (with its reason, never "null"),
   * whatever the number of polls, and shown as {@code lastError}.
   */
  @Test
  void theFollowerLogsAReplacedChainOnceWithItsReason() throws Exception {
    java.util.logging.Logger jul = java.util.logging.Logger.getLogger(EthIndex.class.getName());
    List<java.util.logging.LogRecord> records =
        java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.logging.Handler capture =
        new java.util.logging.Handler() {
          @Override
          public void publish(java.util.logging.LogRecord r) {
            records.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    jul.addHandler(capture);
    AnvilNode first = AnvilNode.start("--no-mining");
    int port = first.port();
    String hash = fill(first, 30, 1).getFirst();
    try (EthIndex index = EthIndex.open(config(first, dir.resolve("eth"), 4))) {
      index.poll();
      index.startFollowing();
      first.close();
      try (AnvilNode second = AnvilNode.startOnPort(port, "--no-mining", "--chain-id", "4243")) {
        fill(second, 5, 1);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (index.chainReplaced() == null && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertTrue(index.chainReplaced() != null, "the follower noticed: " + index.lastError());
        Thread.sleep(1_500); // 15 more polls
        assertThrows(EthIndex.ChainReplacedException.class, () -> index.lookup(key(hash), 0));
        assertEquals(index.chainReplaced(), index.lastError());
        List<String> messages;
        synchronized (records) {
          messages = records.stream().map(java.util.logging.LogRecord::getMessage).toList();
        }
        assertEquals(
            1,
            messages.stream().filter(m -> m.contains("chain id 4243")).count(),
            messages.toString());
        assertTrue(messages.stream().noneMatch(m -> m.contains("null")), messages.toString());
      }
    } finally {
      jul.removeHandler(capture);
      first.close();
    }
  }

  private static Optional<EthAnswer> await(
      EthIndex index, String hash, EthAnswer.Status status, Duration limit) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    Optional<EthAnswer> a;
    do {
      a = index.lookup(key(hash), 0);
      if (a.isPresent() && a.get().status() == status) {
        return a;
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    return a;
  }
}
