package io.bbfindex.benchmarks.synthetic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.leveldb.LevelDbSnapshot;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.DbKeys;
import io.bbfindex.ingest.records.DiskBlockIndex;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.txindex.HashedKeys;
import io.bbfindex.ingest.txindex.HashedTxLookup;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bitcoinj.base.Sha256Hash;
import org.bitcoinj.core.Block;
import org.bitcoinj.core.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmarks' synthetic chain is what Core writes: bitcoinj parses every block (XOR removed) to
 * the header's hash and merkle root and every transaction to the txid the generator reported; the
 * hashed txindex and the block index lead the product's {@link HashedTxLookup} to each one.
 */
class SyntheticChainTest {

  @TempDir Path tmp;

  /** One transaction as the generator reported it. */
  private record Written(byte[] txid, int file, long dataPos, long txOffset) {}

  @Test
  void blocksParseWithBitcoinjAndTheHashedIndexFindsEveryTransaction() throws Exception {
    List<Written> written = new ArrayList<>();
    SyntheticChain.Result chain =
        SyntheticChain.generate(
            tmp.resolve("dd"),
            new SyntheticChain.Params(4_000, Long.MAX_VALUE, 120, 256 << 10, 0xC4A1L, true),
            (txid, file, pos, off) -> written.add(new Written(txid.clone(), file, pos, off)));

    assertEquals(4_000, chain.transactions());
    assertEquals(4_000, written.size());
    assertEquals(4_000, Arrays.stream(chain.txPerFile()).sum());
    assertTrue(chain.txPerFile().length >= 3, "256 KiB files: several of them");
    BlocksXorKey xor = BlocksXorKey.read(chain.blocksDir());
    assertTrue(xor.active(), "blocks/xor.dat holds a non-zero key");
    byte[] raw = Files.readAllBytes(chain.blocksDir().resolve("blk00000.dat"));
    assertFalse(
        Arrays.equals(raw, 0, 4, SyntheticChain.MAINNET_MAGIC, 0, 4), "the blk bytes are XORed");
    long blkBytes = 0;
    for (int f = 0; f < chain.txPerFile().length; f++) {
      blkBytes += Files.size(chain.blocksDir().resolve(String.format("blk%05d.dat", f)));
    }
    assertEquals(chain.blkBytes(), blkBytes);

    // every block: bitcoinj reads it from the un-XORed bytes; header hash, merkle root, txids as
    // reported
    int tx = 0;
    byte[] prev = new byte[32];
    for (BlockInfo b : chain.blocks()) {
      byte[] file =
          Files.readAllBytes(chain.blocksDir().resolve(String.format("blk%05d.dat", b.file())));
      xor.apply(file, 0, file.length, 0);
      int size =
          ByteBuffer.wrap(file, (int) b.dataPos() - 4, 4)
              .order(java.nio.ByteOrder.LITTLE_ENDIAN)
              .getInt();
      Block block = Block.read(ByteBuffer.wrap(file, (int) b.dataPos(), size).slice());
      assertArrayEquals(b.hash(), block.getHash().getReversedBytes());
      assertArrayEquals(prev, b.prevHash(), "headers chain by hash");
      prev = b.hash();
      List<Transaction> txs = block.getTransactions();
      assertEquals(b.txCount(), txs.size());
      assertTrue(txs.get(0).isCoinBase());
      List<byte[]> ids = new ArrayList<>();
      for (Transaction t : txs) {
        Written w = written.get(tx++);
        assertArrayEquals(
            w.txid(), t.getTxId().getReversedBytes(), "txid of transaction " + (tx - 1));
        assertEquals(b.file(), w.file());
        assertEquals(b.dataPos(), w.dataPos());
        ids.add(t.getTxId().getReversedBytes());
      }
      assertArrayEquals(merkleRoot(ids), b.merkleRoot(), "the header commits to the transactions");
    }
    assertTrue(
        written.stream().anyMatch(w -> w.txOffset() > 253), "offsets past the first CompactSize");

    // the hashed txindex: one 'x' row per transaction, 'b' records as the block index; the product
    // finds each
    Map<ByteBuffer, BlockInfo> byHash = new HashMap<>();
    chain.blocks().forEach(b -> byHash.put(ByteBuffer.wrap(b.hash()), b));
    Path work = Files.createDirectories(tmp.resolve("w"));
    try (LevelDbSnapshot txdb = LevelDbSnapshot.open(chain.txindexDir(), work.resolve("tx"));
        LevelDbSnapshot blockdb =
            LevelDbSnapshot.open(chain.blockIndexDir(), work.resolve("index"));
        BlockFileReader reader =
            new BlockFileReader(chain.blocksDir(), xor, SyntheticChain.MAINNET_MAGIC)) {
      long[] rows = {0};
      txdb.scan(
          HashedKeys.TX_ROW,
          (k, v) -> {
            HashedKeys.decodeTxRow(k);
            assertEquals(0, v.length, "hashed rows have empty values");
            rows[0]++;
          });
      assertEquals(4_000, rows[0]);
      for (BlockInfo b : chain.blocks()) {
        byte[] key = DbKeys.blockKey(b.hash());
        DiskBlockIndex d = DiskBlockIndex.decode(key, blockdb.get(key));
        assertEquals(b.file(), d.file());
        assertEquals(b.dataPos(), d.dataPos());
        assertEquals(b.txCount(), d.txCount());
        assertEquals(b.height(), d.height());
      }
      HashedTxLookup lookup = HashedTxLookup.open(txdb, h -> byHash.get(ByteBuffer.wrap(h)));
      assertEquals(chain.salt().k0(), lookup.hasher().k0());
      assertEquals(chain.blocks().size(), lookup.blockSeqs());
      for (Written w : written) {
        Optional<TxLocation> at = lookup.find(w.txid(), reader);
        assertTrue(at.isPresent(), "found through the hashed index");
        assertEquals(w.file(), at.get().file());
        assertEquals(w.dataPos(), at.get().dataPos());
        assertEquals(w.txOffset(), at.get().txOffset());
      }
      byte[] absent = written.getFirst().txid().clone();
      absent[5] ^= 1;
      assertTrue(lookup.find(absent, reader).isEmpty());
    }
  }

  /** Core's merkle root (an odd level's last hash paired with itself), over bitcoinj's txids. */
  private static byte[] merkleRoot(List<byte[]> level) {
    while (level.size() > 1) {
      List<byte[]> next = new ArrayList<>();
      for (int i = 0; i < level.size(); i += 2) {
        byte[] right = level.get(Math.min(i + 1, level.size() - 1));
        next.add(Sha256Hash.hashTwice(level.get(i), 0, 32, right, 0, 32));
      }
      level = next;
    }
    return level.getFirst();
  }
}
