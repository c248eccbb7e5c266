package io.bbfindex.follow.layer;

import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.blockfile.BlocksXorKey;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.bitcoinj.base.Sha256Hash;

/**
 * Finds a block the node names in its {@code blk?????.dat} files (read only, {@code xor.dat}
 * applied by chain-ingest's {@link BlockFileReader}), so that the tip layer can give the same
 * location (file, dataPos) the txindex would. The node only appends to its newest file, so a miss
 * rescans that file (and the one before, where the snapshot's last blocks may lie) reading only the
 * 88-byte record headers; a partly written tail record ends the scan. Used by the follower thread
 * only.
 */
public final class BlockFileLocator implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(BlockFileLocator.class.getName());

  private final BlockFileReader reader;
  private final Path blocksDir;
  private final Map<Hash32, BlockPosition> found = new HashMap<>();
  private int newestScanned = -1;

  private BlockFileLocator(Path blocksDir, BlockFileReader reader) {
    this.blocksDir = blocksDir;
    this.reader = reader;
  }

  /**
   * A locator over {@code blocksDir}, or empty when the directory is not readable here (a node on
   * another host): answers then carry no location.
   *
   * @throws IOException if {@code xor.dat} is present but unreadable or malformed
   */
  public static Optional<BlockFileLocator> open(Path blocksDir) throws IOException {
    if (blocksDir == null || !Files.isReadable(blocksDir.resolve("blk00000.dat"))) {
      return Optional.empty();
    }
    return Optional.of(
        new BlockFileLocator(
            blocksDir, new BlockFileReader(blocksDir, BlocksXorKey.read(blocksDir), null)));
  }

  /** The block's position, or empty if it is not (yet) in the files. */
  public Optional<BlockPosition> find(Hash32 hash) {
    BlockPosition p = found.get(hash);
    if (p == null) {
      int newest = newestFile();
      for (int f = Math.max(0, Math.min(newestScanned, newest - 1)); f <= newest; f++) {
        scan(f);
      }
      newestScanned = newest;
      p = found.get(hash);
    }
    return Optional.ofNullable(p);
  }

  private int newestFile() {
    int f = Math.max(newestScanned, 0);
    while (Files.exists(reader.blockFile(f + 1))) {
      f++;
    }
    return f;
  }

  private void scan(int file) {
    try {
      reader.scan(
          file,
          (dataPos, size, header) -> {
            found.put(
                Hash32.ofInternal(Sha256Hash.hashTwice(header)), new BlockPosition(file, dataPos));
            return true;
          });
    } catch (CorruptRecordException e) {
      // The node is writing the tail record right now: what was read before it stands.
      LOG.log(
          System.Logger.Level.DEBUG,
          "scan of blk file " + file + " in " + blocksDir + " stopped: " + e.getMessage());
    } catch (IOException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "cannot scan blk file " + file + " in " + blocksDir + ": " + e);
    }
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
