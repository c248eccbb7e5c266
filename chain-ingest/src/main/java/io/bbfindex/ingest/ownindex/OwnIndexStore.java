package io.bbfindex.ingest.ownindex;

import io.bbfindex.ingest.NodeIndex;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * The own index of a served node, opened as it is when it matches the node and (re)built when it
 * does not: missing, damaged (named in the log, then rebuilt), or built from other blocks (its
 * chain digest or active tip is not the node's). Incremental updates are later work: a changed
 * chain is a full rebuild here.
 *
 * <p>Opening checks the file's header and shard table only; its shards are checked by a background
 * pass (and each before the first lookup that reads it, {@link OwnIndexFile#value}). A damaged
 * shard found that way is named in the log and the file is deleted, so that the next open builds it
 * again; until then lookups into that shard fail naming it, the others answer.
 */
public final class OwnIndexStore {

  /** The file name inside the filter store's directory. */
  public static final String FILE_NAME = "own-txindex.dat";

  /** Files up to this size are checked whole at open: 64 MiB, about 11 million txids. */
  static final long EAGER_CHECK_BYTES = 64L << 20;

  private OwnIndexStore() {}

  /**
   * The lookup of {@code node}'s own index at {@code file}, built first if needed.
   *
   * @param tempDir where a build spills (deleted after)
   * @param log one-line messages (why a build happens, its size)
   */
  public static OwnTxLookup open(NodeIndex node, Path file, Path tempDir, PrintStream log)
      throws IOException {
    Optional<OwnIndexFile> current = openMatching(node, file, log);
    if (current.isEmpty()) {
      OwnIndexBuilder.Report r =
          OwnIndexBuilder.build(
              node, file, tempDir, Math.max(1, Runtime.getRuntime().availableProcessors()));
      log.printf(
          "bbf-index: own txid index built: %,d txids, %,d bytes (%.2f bytes a txid) in %d ms%n",
          r.keys(), r.bytes(), r.bytesPerTxid(), r.millis());
      current = Optional.of(OwnIndexFile.open(file));
    }
    verifyInBackground(current.get(), log);
    return new OwnTxLookup(current.get(), node.blocks(), node.blockFileReader());
  }

  /**
   * Checks every shard of {@code f} on a daemon thread of low priority; a damaged one is logged and
   * the file deleted (its mapping stays readable for the sound shards until closed).
   *
   * @return the thread, for a caller that waits for the check
   */
  static Thread verifyInBackground(OwnIndexFile f, PrintStream log) {
    return Thread.ofPlatform()
        .daemon()
        .name("own-index-verify")
        .priority(Thread.MIN_PRIORITY)
        .start(
            () -> {
              long start = System.nanoTime();
              try {
                f.verifyAll();
                log.printf(
                    "bbf-index: own txid index %s: %,d shards checked in %d ms%n",
                    f.path(), f.shardsVerified(), (System.nanoTime() - start) / 1_000_000);
              } catch (OwnIndexCorruptException e) {
                log.println(
                    "bbf-index: " + e.getMessage() + " (deleted: rebuilt at the next start)");
                try {
                  Files.deleteIfExists(f.path());
                } catch (IOException gone) {
                  log.println("bbf-index: could not delete " + f.path() + ": " + gone.getMessage());
                }
              } catch (IllegalStateException closed) {
                // closed under the check (the server stopped): nothing was found damaged
              }
            });
  }

  private static Optional<OwnIndexFile> openMatching(NodeIndex node, Path file, PrintStream log)
      throws IOException {
    if (!Files.exists(file)) {
      log.println("bbf-index: building the own txid index " + file);
      return Optional.empty();
    }
    OwnIndexFile f;
    try {
      f =
          Files.size(file) <= EAGER_CHECK_BYTES
              ? OwnIndexFile.openVerified(file)
              : OwnIndexFile.open(file); // header and shard table; the shards in the background
    } catch (OwnIndexCorruptException e) {
      log.println("bbf-index: " + e.getMessage() + " (rebuilding it)");
      return Optional.empty();
    }
    OwnIndexHeader h = f.header();
    if (!Arrays.equals(h.tipHash(), node.tipHash())
        || !Arrays.equals(h.chainDigest(), ChainDigest.of(node.blocks()))) {
      log.println(
          "bbf-index: the own txid index "
              + file
              + " was built at height "
              + h.tipHeight()
              + ", the node is at "
              + node.tipHeight()
              + " (rebuilding it)");
      f.close();
      return Optional.empty();
    }
    return Optional.of(f);
  }
}
