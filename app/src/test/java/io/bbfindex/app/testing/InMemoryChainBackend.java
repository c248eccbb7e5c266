package io.bbfindex.app.testing;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.testing.GroundTruth;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An edge fake of the chain backend for the HTTP tests, built from a fixture's real ground truth:
 * the "filter" is an exact set of the real txids plus a given set of extra keys it wrongly says
 * "maybe" to (so the false-positive path is exercised deterministically), and every {@link
 * #lookupTx} counts one "LevelDB read". {@code activeTip} below the real tip simulates a reorg: the
 * blocks above it are reported off the active chain.
 */
public final class InMemoryChainBackend implements ChainBackend {
  private final Map<String, GroundTruth.Tx> txs = new HashMap<>();
  private final Map<String, GroundTruth.Block> blocks;
  private final Set<String> falsePositives;
  private final int activeTip;
  private final AtomicLong reads = new AtomicLong();
  private volatile boolean open = true;

  public InMemoryChainBackend(GroundTruth truth, Set<String> falsePositiveHex, int activeTip) {
    truth.txs().forEach(t -> txs.put(t.txidHex(), t));
    this.blocks = truth.blocks();
    this.falsePositives = new HashSet<>(falsePositiveHex);
    this.activeTip = activeTip;
  }

  private static String hex(byte[] keys, int offset) {
    return HashKeys.toDisplayHex(Arrays.copyOfRange(keys, offset, offset + HashKeys.KEY_BYTES));
  }

  @Override
  public boolean txMaybe(byte[] keys, int offset) {
    String h = hex(keys, offset);
    return txs.containsKey(h) || falsePositives.contains(h);
  }

  @Override
  public int txMaybeBatch(byte[] keys, int count, long[] maybe) {
    int hits = 0;
    for (int i = 0; i < count; i++) {
      if (txMaybe(keys, i * HashKeys.KEY_BYTES)) {
        maybe[i >>> 6] |= 1L << i;
        hits++;
      } else {
        maybe[i >>> 6] &= ~(1L << i);
      }
    }
    return hits;
  }

  @Override
  public Optional<TxAnswer> lookupTx(byte[] txid) {
    reads.incrementAndGet();
    GroundTruth.Tx t = txs.get(hex(txid, 0));
    if (t == null) {
      return Optional.empty();
    }
    GroundTruth.Block b = t.block();
    boolean active = b.height() <= activeTip;
    return Optional.of(
        new TxAnswer(
            HashKeys.fromDisplayHex("hash", b.hashHex()),
            b.height(),
            active ? activeTip - b.height() + 1 : TxAnswer.STALE_CONFIRMATIONS,
            t.file(),
            t.dataPos(),
            t.txOffset(),
            active));
  }

  @Override
  public boolean blockMaybe(byte[] hash) {
    String h = hex(hash, 0);
    return blocks.containsKey(h) || falsePositives.contains(h);
  }

  @Override
  public Optional<BlockAnswer> lookupBlock(byte[] hash) {
    GroundTruth.Block b = blocks.get(hex(hash, 0));
    if (b == null) {
      return Optional.empty();
    }
    ByteBuffer h = ByteBuffer.wrap(b.header()).order(ByteOrder.LITTLE_ENDIAN);
    boolean active = b.height() <= activeTip;
    return Optional.of(
        new BlockAnswer(
            hash.clone(),
            b.height(),
            0x1d,
            b.nTx(),
            b.file(),
            b.dataPos(),
            h.getInt(0),
            Arrays.copyOfRange(b.header(), 4, 36),
            Arrays.copyOfRange(b.header(), 36, 68),
            h.getInt(68) & 0xffffffffL,
            h.getInt(72) & 0xffffffffL,
            h.getInt(76) & 0xffffffffL,
            active,
            active ? activeTip - b.height() + 1 : -1));
  }

  @Override
  public List<FilterSummary> filters() {
    return List.of(
        new FilterSummary(
            "tx-summary", "tx-summary", -1, txs.size(), 8L * txs.size(), 8, 32, 0.5, 0.01));
  }

  @Override
  public int tipHeight() {
    return activeTip;
  }

  @Override
  public long leveldbReads() {
    return reads.get();
  }

  @Override
  public boolean ready() {
    return open;
  }

  @Override
  public void close() {
    open = false;
  }

  @Override
  public String txindexLayout() {
    return "legacy";
  }

  @Override
  public String txindexLocation() {
    return "indexes/txindex";
  }

  @Override
  public String txindexSource() {
    return "node";
  }
}
