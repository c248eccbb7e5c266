package io.bbfindex.ingest.txindex;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.bitcoinj.base.Sha256Hash;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A block index whose {@code nTx} claims more transactions than the block file can hold is refused
 * with a clear error before anything is sized by it (found by {@code BlockFileFuzzTest}: the
 * claimed count sized three arrays, so 2^31-1 escaped as an ArithmeticException and tens of
 * millions ran the JVM out of memory).
 */
class BlockDataTxSourceBoundsTest {

  @TempDir Path tmp;

  @ParameterizedTest
  @ValueSource(ints = {Integer.MAX_VALUE, -1, 30_000_000})
  void aTransactionCountTheFileCannotHoldIsRefused(int claimedTxs) throws IOException {
    Path datadir = Fixtures.extract(Fixtures.Archive.MAINNET_LDB, tmp);
    Path blocks = tmp.resolve("blocks");
    Files.createDirectories(blocks);
    // the genesis block, alone in a file of its own
    byte[] file = Arrays.copyOf(Files.readAllBytes(datadir.resolve("blocks/blk00000.dat")), 293);
    Files.write(blocks.resolve("blk00000.dat"), file);
    byte[] header = Arrays.copyOfRange(file, 8, 88);
    BlockInfo genesis =
        new BlockInfo(
            Sha256Hash.hashTwice(header),
            0,
            BlockStatus.HAVE_DATA,
            claimedTxs,
            0,
            8,
            -1,
            header,
            true,
            1);
    try (BlockFileReader reader = new BlockFileReader(blocks, BlocksXorKey.NONE, null)) {
      BlockDataTxSource source =
          new BlockDataTxSource(List.of(genesis), reader, BlocksXorKey.NONE, 1);
      IndexReadException e =
          assertThrows(
              IndexReadException.class, () -> source.forEachTx(0, 256, (txid, f, pos, off) -> {}));
      assertTrue(
          e.getMessage().contains(Integer.toUnsignedString(claimedTxs) + " transactions"),
          e.getMessage());
    }
  }
}
