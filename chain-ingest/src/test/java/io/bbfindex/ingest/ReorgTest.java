package io.bbfindex.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.chain.ChainWork;
import io.bbfindex.ingest.encoding.CoreVarInt;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.testing.CoreLevelDbWriter;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Map;
import org.bitcoinj.base.Coin;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Transaction;
import org.bitcoinj.script.ScriptBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reorg written into a copy of a real regtest datadir the way Core writes one: competing blocks
 * appended to blk00000.dat (magic, size, header, one coinbase), their 'b' records (with a real
 * proof of work) added to blocks/index and their coinbase's 't' rows to indexes/txindex. Core never
 * deletes 't' rows of disconnected blocks, so lookups must say "stale" for them.
 */
class ReorgTest {

  private static final long REGTEST_BITS = 0x207fffffL;
  private static final byte[] REGTEST_MAGIC = HexFormat.of().parseHex("fabfb5da");

  @TempDir Path tmp;

  private Path dd;
  private BlockInfo oldTip;
  private BlockInfo parentOfOldTip;
  private long blkEnd;
  private int blocksAdded;

  /** A block this test appended: its hash, position and coinbase. */
  private record Added(byte[] hash, long dataPos, Transaction coinbase, byte[] header) {}

  @BeforeEach
  void copyRegtest() throws IOException {
    dd = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
    try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("w0"))) {
      oldTip = idx.tip();
      parentOfOldTip = idx.activeBlockAt(idx.tipHeight() - 1).orElseThrow();
      blkEnd = idx.blockFiles().get(0).size();
    }
  }

  @Test
  void aCompetingBlockOfEqualWorkStaysStaleAndItsTransactionsSayStale() throws IOException {
    Added s1 =
        appendBlock(
            parentOfOldTip.hash(), parentOfOldTip.height() + 1, parentOfOldTip.time() + 1, true);
    // the second open takes the block index and its active chain from the cache
    for (boolean cached : new boolean[] {false, true}) {
      try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("w"))) {
        assertEquals(cached, idx.blockIndexFromCache());
        assertArrayEquals(
            oldTip.hash(), idx.tipHash(), "equal work: the block stored first stays active");
        BlockInfo stale = idx.findBlock(s1.hash()).orElseThrow();
        assertFalse(stale.onActiveChain());
        assertEquals(-1, stale.confirmations());
        assertEquals(oldTip.height(), stale.height());

        TxLocation loc = idx.findTx(s1.coinbase().getTxId().getReversedBytes()).orElseThrow();
        assertEquals(stale, loc.block());
        assertEquals(s1.coinbase().getTxId(), idx.readTransaction(loc).getTxId());
      }
    }
  }

  @Test
  void aLongerForkBecomesActiveAndTheOldTipsTransactionsBecomeStale() throws IOException {
    Added s1 =
        appendBlock(
            parentOfOldTip.hash(), parentOfOldTip.height() + 1, parentOfOldTip.time() + 1, true);
    Added s2 = appendBlock(s1.hash(), parentOfOldTip.height() + 2, parentOfOldTip.time() + 2, true);
    TxRow inOldTip =
        Fixtures.txRows(Archive.REGTEST_B).stream()
            .filter(r -> r.pos() == oldTip.dataPos())
            .findFirst()
            .orElseThrow();
    for (boolean cached : new boolean[] {false, true}) {
      try (NodeIndex idx = NodeIndex.open(dd, tmp.resolve("w"))) {
        assertEquals(cached, idx.blockIndexFromCache());
        assertEquals(oldTip.height() + 1, idx.tipHeight());
        assertArrayEquals(s2.hash(), idx.tipHash());
        assertEquals(
            ChainWork.blockProof(REGTEST_BITS)
                .multiply(java.math.BigInteger.valueOf(idx.tipHeight() + 1)),
            idx.tipChainWork());

        BlockInfo old = idx.findBlock(oldTip.hash()).orElseThrow();
        assertFalse(old.onActiveChain());
        TxLocation stale = idx.findTx(inOldTip.txidInternal()).orElseThrow();
        assertFalse(stale.block().onActiveChain(), "txindex keeps rows of disconnected blocks");
        assertEquals(inOldTip.txidHex(), idx.readTransaction(stale).getTxId().toString());

        TxLocation confirmed = idx.findTx(s1.coinbase().getTxId().getReversedBytes()).orElseThrow();
        assertTrue(confirmed.block().onActiveChain());
        assertEquals(2, confirmed.block().confirmations());
        // the txindex committed at the old tip, which is now stale: its height is still reported
        assertArrayEquals(oldTip.hash(), idx.txindexTipHash().orElseThrow());
      }
    }
  }

  @Test
  void aBlockRecordWithoutProofOfWorkIsRefusedLikeCore() throws IOException {
    appendBlock(oldTip.hash(), oldTip.height() + 1, oldTip.time() + 1, false);
    DataDirException e =
        assertThrows(DataDirException.class, () -> NodeIndex.open(dd, tmp.resolve("w")));
    assertTrue(e.getMessage().contains("proof-of-work"), e.getMessage());
  }

  /**
   * Appends a one-coinbase block on {@code prev} to blk00000.dat and writes its 'b' and 't' rows.
   *
   * @param mined whether to grind the nonce until the header meets the regtest target
   */
  private Added appendBlock(byte[] prev, int height, long time, boolean mined) throws IOException {
    Transaction cb =
        Transaction.coinbase(
            ("reorg test block " + blocksAdded++).getBytes(StandardCharsets.US_ASCII));
    cb.addOutput(Coin.valueOf(50, 0), ScriptBuilder.createOpReturnScript(new byte[] {1, 2, 3}));
    byte[] txBytes = cb.serialize();

    byte[] header = new byte[80];
    ByteBuffer le = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    le.putInt(0, 0x20000000);
    System.arraycopy(prev, 0, header, 4, 32);
    System.arraycopy(cb.getTxId().getReversedBytes(), 0, header, 36, 32); // merkle root of one tx
    le.putInt(68, (int) time);
    le.putInt(72, (int) REGTEST_BITS);
    for (long nonce = 0; ; nonce++) {
      le.putInt(76, (int) nonce);
      if (ChainWork.meetsTarget(Sha256Hash.hashTwice(header), REGTEST_BITS) == mined) {
        break;
      }
    }
    byte[] hash = Sha256Hash.hashTwice(header);

    ByteArrayOutputStream block = new ByteArrayOutputStream();
    block.write(header);
    block.write(1); // tx count (CompactSize)
    block.write(txBytes);
    ByteBuffer record = ByteBuffer.allocate(8 + block.size());
    record
        .put(REGTEST_MAGIC)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(block.size())
        .put(block.toByteArray())
        .flip();
    long dataPos = blkEnd + 8;
    try (FileChannel ch =
        FileChannel.open(dd.resolve("blocks/blk00000.dat"), StandardOpenOption.WRITE)) {
      ch.write(record, blkEnd);
    }
    blkEnd += record.capacity();

    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (long v :
        new long[] {
          259900, height, BlockStatus.VALID_SCRIPTS | BlockStatus.HAVE_DATA, 1, 0, dataPos
        }) {
      b.write(CoreVarInt.encode(v));
    }
    b.write(header);
    CoreLevelDbWriter.putAll(
        dd.resolve("blocks/index"), Map.of(DbKeys.blockKey(hash), b.toByteArray()));

    ByteArrayOutputStream t = new ByteArrayOutputStream();
    for (long v : new long[] {0, dataPos, 1}) {
      t.write(CoreVarInt.encode(v));
    }
    CoreLevelDbWriter.putAll(
        dd.resolve("indexes/txindex"),
        Map.of(DbKeys.txKey(cb.getTxId().getReversedBytes()), t.toByteArray()));
    return new Added(hash, dataPos, cb, header);
  }
}
