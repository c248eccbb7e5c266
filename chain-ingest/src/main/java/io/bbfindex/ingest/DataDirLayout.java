package io.bbfindex.ingest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where the pieces of a Bitcoin Core data directory are, and the diagnosis of paths that are not
 * one. Core keeps {@code blocks/index} under the (chain) datadir even with {@code -blocksdir}
 * (doc/files.md); the blk files are read from {@code <datadir>/blocks}.
 *
 * @param txindexDir {@code indexes/txindex} when present (Core >= 0.17); empty for older nodes,
 *     whose txindex, if enabled, lives inside {@code blocks/index}
 */
record DataDirLayout(Path datadir, Path blocksDir, Path blockIndexDir, Optional<Path> txindexDir) {

  /** Chain subdirectories Core uses for non-mainnet networks. */
  static final List<String> CHAIN_SUBDIRS = List.of("regtest", "testnet3", "testnet4", "signet");

  static DataDirLayout detect(Path datadir) throws DataDirException {
    if (!Files.exists(datadir)) {
      throw new DataDirException(
          datadir,
          "does not exist; pass the Bitcoin Core data directory (e.g. ~/.bitcoin, "
              + "or ~/.bitcoin/regtest for a regtest node)");
    }
    if (!Files.isDirectory(datadir)) {
      throw new DataDirException(
          datadir, "is not a directory; pass the Bitcoin Core data directory that holds blocks/");
    }
    Path blocks = datadir.resolve("blocks");
    Path index = blocks.resolve("index");
    if (!Files.isDirectory(index)) {
      throw new DataDirException(datadir, diagnoseMissingIndex(datadir));
    }
    if (!Files.isRegularFile(index.resolve("CURRENT"))) {
      throw new DataDirException(
          index,
          "blocks/index is not a LevelDB (no CURRENT file); is the data directory "
              + "complete? Point at a data directory written by Bitcoin Core");
    }
    Path txindex = datadir.resolve("indexes").resolve("txindex");
    return new DataDirLayout(
        datadir,
        blocks,
        index,
        Files.isDirectory(txindex) ? Optional.of(txindex) : Optional.empty());
  }

  private static String diagnoseMissingIndex(Path dir) {
    Path name = dir.getFileName();
    if (Files.isDirectory(dir.resolve("index"))
        || Files.isRegularFile(dir.resolve("blk00000.dat"))
        || (name != null && name.toString().equals("blocks"))) {
      return "this is the blocks directory, not the data directory; pass its parent "
          + dir.getParent();
    }
    if (Files.isRegularFile(dir.resolve("CURRENT"))) {
      return "this is a LevelDB directory, not the data directory; pass the directory that holds"
          + " blocks/index";
    }
    for (String chain : CHAIN_SUBDIRS) {
      if (Files.isDirectory(dir.resolve(chain).resolve("blocks").resolve("index"))) {
        return "has no blocks/index, but "
            + dir.resolve(chain)
            + " holds a "
            + chain
            + " node's data; pass "
            + dir.resolve(chain);
      }
    }
    return "has no blocks/index; pass the Bitcoin Core data directory (the one holding blocks/ and "
        + "indexes/, e.g. ~/.bitcoin or ~/.bitcoin/regtest)";
  }
}
