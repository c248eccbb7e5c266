package io.bbfindex.app.pruned;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.node.RpcException;
import io.bbfindex.ingest.blockfile.MerkleTree;
import io.bbfindex.ingest.encoding.Hash32;
import io.bbfindex.ingest.ownindex.FingerprintBlock;
import io.bbfindex.ingest.ownindex.FingerprintCapture;
import io.bbfindex.ingest.records.BlockInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Block;
import org.bitcoinj.core.Transaction;

/**
 * {@code --backfill-pruned}: fetches the blocks the node pruned before bbf-index indexed them back
 * from the node's peers ({@code getblockfrompeer}, Bitcoin Core >= 24: the node asks a peer for a
 * block whose header it has and stores it), reads each through RPC ({@code getblock <hash> 0}),
 * checks it against its header (hash, merkle root) and adds its txids' fingerprints, in parts of
 * {@value #PART_BLOCKS} blocks.
 *
 * <p><b>Resumable:</b> progress is the parts written; after a kill the blocks not yet in a part are
 * fetched again (those the node still holds cost no peer request). <b>Rate-limited:</b> at most
 * {@code blocksPerSecond} blocks are asked for, so a node with few peers is not flooded. Progress
 * is in {@code GET /v1/status} ({@code pruned.backfill}) and the {@code bbf_pruned_backfill_*}
 * meters; a block no peer gives is tried again after {@value #RETRY_MS} ms, its error in {@code
 * lastError}.
 */
public final class PrunedBackfill implements AutoCloseable {

  /** Blocks a part holds: what a kill can cost to fetch again. */
  static final int PART_BLOCKS = 500;

  static final long RETRY_MS = 5_000;

  /** How long a peer has to deliver a requested block. */
  static final long FETCH_TIMEOUT_MS = 30_000;

  private final PrunedHistory history;
  private final NodeRpc rpc;
  private final double blocksPerSecond;
  private final Path tempDir;
  private final PrintStream log;
  private final Thread thread;
  private volatile boolean running = true;
  private long nextRequestNanos;

  private PrunedBackfill(
      PrunedHistory history, NodeRpc rpc, double blocksPerSecond, Path tempDir, PrintStream log) {
    this.history = Objects.requireNonNull(history, "history");
    this.rpc = Objects.requireNonNull(rpc, "rpc");
    if (!(blocksPerSecond > 0)) {
      throw new IllegalArgumentException("blocks per second must be > 0: " + blocksPerSecond);
    }
    this.blocksPerSecond = blocksPerSecond;
    this.tempDir = tempDir;
    this.log = log;
    this.thread = Thread.ofPlatform().daemon().name("bbf-backfill-pruned").unstarted(this::run);
  }

  /** Starts the backfill of {@code history}'s unindexed blocks in a background thread. */
  public static PrunedBackfill start(
      PrunedHistory history, NodeRpc rpc, double blocksPerSecond, Path tempDir, PrintStream log) {
    PrunedBackfill b = new PrunedBackfill(history, rpc, blocksPerSecond, tempDir, log);
    b.thread.start();
    return b;
  }

  private void run() {
    List<BlockInfo> todo = history.unindexed();
    int total = todo.size();
    int done = 0;
    String error = null;
    List<FingerprintBlock> blocks = new ArrayList<>();
    List<byte[]> txids = new ArrayList<>(); // per block: its txids, 32 bytes each
    history.backfill().set(BackfillProgress.RUNNING, 0, total, blocksPerSecond, null);
    log.printf("bbf-index: backfilling %d pruned block(s) from the node's peers%n", total);
    int i = 0;
    while (running && i < todo.size()) {
      BlockInfo b = todo.get(i);
      try {
        if (!history.store().covers(b.hash())) {
          txids.add(fetchTxids(b));
          blocks.add(FingerprintCapture.block(b));
        }
        i++;
        if (blocks.size() >= PART_BLOCKS || (i == todo.size() && !blocks.isEmpty())) {
          flush(blocks, txids);
          done = i;
        }
        error = null;
      } catch (IOException | RuntimeException e) {
        error = "block " + b.hashHex() + " (height " + b.height() + "): " + e.getMessage();
        history.backfill().set(BackfillProgress.RUNNING, done, total, blocksPerSecond, error);
        pause(RETRY_MS);
        continue;
      }
      history.backfill().set(BackfillProgress.RUNNING, done, total, blocksPerSecond, error);
    }
    if (running) {
      history.backfill().set(BackfillProgress.DONE, done, total, blocksPerSecond, null);
      log.printf("bbf-index: backfill done: %d pruned block(s) indexed%n", done);
    }
  }

  /** Writes the fetched blocks as a part: from now on they are covered, and survive a kill. */
  private void flush(List<FingerprintBlock> blocks, List<byte[]> txids) throws IOException {
    long keys = txids.stream().mapToLong(t -> t.length / 32).sum();
    history
        .store()
        .append(
            List.copyOf(blocks),
            keys,
            sink -> {
              for (int o = 0; o < txids.size(); o++) {
                byte[] t = txids.get(o);
                for (int at = 0; at < t.length; at += 32) {
                  sink.accept(t, at, o);
                }
              }
            },
            tempDir);
    blocks.clear();
    txids.clear();
    history.refresh();
  }

  /** The txids of block {@code b}, fetched from a peer unless the node holds it again. */
  private byte[] fetchTxids(BlockInfo b) throws IOException {
    if (b.txCount() == 1) {
      // one transaction: its txid is the header's merkle root, no fetch needed (and the genesis
      // block, which no peer sends again, is one)
      return b.merkleRoot();
    }
    Hash32 hash = Hash32.ofInternal(b.hash());
    Optional<byte[]> raw = held(hash);
    if (raw.isEmpty()) {
      pace();
      raw = fromPeers(hash);
    }
    return checkedTxids(b, raw.orElseThrow());
  }

  private Optional<byte[]> fromPeers(Hash32 hash) throws IOException {
    List<String> refusals = new ArrayList<>();
    for (JsonNode peer : rpc.call("getpeerinfo")) {
      int id = peer.path("id").asInt();
      try {
        rpc.call("getblockfrompeer", hash.displayHex(), id);
      } catch (RpcException e) {
        refusals.add("peer " + id + ": " + e.getMessage());
        continue;
      }
      long deadline = System.nanoTime() + FETCH_TIMEOUT_MS * 1_000_000;
      while (running && System.nanoTime() < deadline) {
        Optional<byte[]> got = held(hash);
        if (got.isPresent()) {
          return got;
        }
        pause(100);
      }
      refusals.add("peer " + id + " did not deliver it in " + FETCH_TIMEOUT_MS / 1000 + " s");
    }
    throw new IOException(
        refusals.isEmpty()
            ? "the node has no peers to fetch it from"
            : "no peer gave it: " + String.join("; ", refusals));
  }

  /**
   * The block's bytes if the node holds them ({@code getblock <hash> 0}); empty when it refuses
   * ("Block not available (pruned data)", or not yet received).
   */
  private Optional<byte[]> held(Hash32 hash) throws IOException {
    try {
      return Optional.of(
          java.util.HexFormat.of().parseHex(rpc.call("getblock", hash.displayHex(), 0).asText()));
    } catch (RpcException e) {
      return Optional.empty();
    }
  }

  /** The block's txids, after checking the bytes hash to the block and fold to its merkle root. */
  private static byte[] checkedTxids(BlockInfo b, byte[] raw) throws IOException {
    Block block;
    try {
      block = Block.read(ByteBuffer.wrap(raw));
    } catch (RuntimeException e) {
      throw new IOException("the node's bytes are not a block: " + e.getMessage(), e);
    }
    if (!Arrays.equals(block.getHash().getReversedBytes(), b.hash())) {
      throw new IOException("the node's bytes hash to another block " + block.getHash());
    }
    List<Transaction> txs = block.getTransactions();
    if (txs == null || txs.isEmpty()) {
      throw new IOException("the node's block holds no transactions");
    }
    List<Sha256Hash> ids = txs.stream().map(Transaction::getTxId).toList();
    if (!MerkleTree.of(ids).root().equals(block.getMerkleRoot())) {
      throw new IOException("the node's block's transactions do not fold to its merkle root");
    }
    byte[] out = new byte[32 * ids.size()];
    for (int i = 0; i < ids.size(); i++) {
      System.arraycopy(ids.get(i).getReversedBytes(), 0, out, 32 * i, 32);
    }
    return out;
  }

  /** Waits until the next peer request is allowed: at most {@code blocksPerSecond}. */
  private void pace() {
    long now = System.nanoTime();
    if (nextRequestNanos > now) {
      pause((nextRequestNanos - now) / 1_000_000);
    }
    nextRequestNanos = Math.max(now, nextRequestNanos) + (long) (1e9 / blocksPerSecond);
  }

  private void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      running = false;
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the backfill (what it wrote stays; the rest is fetched at the next start). */
  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
