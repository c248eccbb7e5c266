package io.bbfindex.benchmarks.soak;

import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.follow.regtest.RegtestNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The soak's followed node: a regtest chain mined up front, {@code serve --follow} of it, and a
 * miner that sends a transaction and mines a block every {@value #BLOCK_SECONDS} s while the
 * traffic runs, so the server connects blocks and churns its mempool under load.
 */
public final class FollowedNode implements AutoCloseable {

  static final int BLOCK_SECONDS = 5;
  static final int INITIAL_BLOCKS = 101;

  private final RegtestNode node;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong errors = new AtomicLong();
  private final Thread thread;

  private FollowedNode(RegtestNode node) {
    this.node = node;
    this.thread = Thread.ofPlatform().name("soak-miner").daemon().start(this::loop);
  }

  /** Mines the initial chain; the txids of its coinbases (blocks 1-101), which stay confirmed. */
  public static List<String> prepare(RegtestNode node) throws IOException, InterruptedException {
    node.mine(INITIAL_BLOCKS);
    node.stop(); // Core writes its block index at shutdown: serve's snapshot needs it
    node.restart();
    List<String> coinbases = new ArrayList<>();
    for (int h = 1; h <= INITIAL_BLOCKS; h++) {
      String hash = node.rpc().call("getblockhash", h).asText();
      coinbases.add(node.rpc().call("getblock", hash, 1).path("tx").get(0).asText());
    }
    return coinbases;
  }

  /** {@code serve --follow} of the node, in its own JVM. */
  public static ServerProcess serve(RegtestNode node, Path tmp)
      throws IOException, InterruptedException {
    return ServerProcess.serveFollowing(node, tmp, SoakBench.SERVER_JVM);
  }

  /** Starts mining. */
  static FollowedNode mine(RegtestNode node) {
    return new FollowedNode(node);
  }

  /** Failed sends or mines (an error of the run: the node is part of the system under test). */
  long errors() {
    return errors.get();
  }

  private void loop() {
    while (running.get()) {
      try {
        TimeUnit.SECONDS.sleep(BLOCK_SECONDS);
        node.send("bech32", 0.01);
        node.mine(1);
      } catch (IOException e) {
        if (running.get()) {
          errors.incrementAndGet();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.interrupt();
    thread.join(TimeUnit.SECONDS.toMillis(30));
  }
}
