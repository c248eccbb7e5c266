package io.bbfindex.ingest.ownindex;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fingerprints of the txids of blocks a pruning node may delete: a directory of immutable parts
 * ({@link FingerprintPart}), each the txids of up to 4,096 blocks, kept while the blocks are still
 * on disk so that a tx whose block is gone still answers {@code confirmed} with its block and
 * height. The transaction's bytes cannot be re-read to confirm a match any more: the 52-bit
 * fingerprint stands in for them.
 *
 * <p><b>False {@code confirmed}:</b> a txid no part holds matches a part with probability 2^-52
 * (its three slots' fingerprint must equal its own, and their ordinal name a block of the part), so
 * a lookup of an unknown txid answers {@code confirmed} falsely with probability at most {@code
 * parts x 2^-52} = 2.2e-16 a part: at most 9.1e-13 while there are at most 4,096 parts ({@link
 * #falseConfirmedBound}). Callers also require the named block to be pruned, which only lowers it.
 *
 * <p><b>Appending:</b> a part is written whole to a temporary name and renamed ({@link #append}),
 * so a kill leaves the parts before it; the next part number is one more than the highest present.
 * A follower can append a part per block; parts cannot be merged without their txids (they store
 * none), so it should fold per-block parts into one while their blocks are still on disk (Core
 * keeps at least the last 288 blocks) by writing the blocks again as one part and deleting the
 * small ones.
 *
 * <p>Thread-safe: lookups read an immutable list of parts replaced by {@link #append}.
 */
public final class FingerprintStore implements AutoCloseable {

  /** The directory inside the filter store's directory. */
  public static final String DIR_NAME = "own-fingerprints";

  /** Parts under which {@link #falseConfirmedBound} stays below 1e-12. */
  public static final int PARTS_WITHIN_BOUND = 4096;

  private static final Pattern PART = Pattern.compile("part-(\\d{8})\\.fpt");
  private static final SecureRandom SALTS = new SecureRandom();

  /** Feeds a part's txids, each with the ordinal of its block in the part's block table. */
  public interface TxidFeed {
    void forEach(TxidSink sink) throws IOException;
  }

  /** One txid (32 bytes at {@code offset}, internal order) of block {@code ordinal}. */
  public interface TxidSink {
    void accept(byte[] txid, int offset, int ordinal) throws IOException;
  }

  private final Path dir;
  private volatile List<FingerprintPart> parts;
  private final Set<ByteBuffer> covered = ConcurrentHashMap.newKeySet();
  private int nextNumber;
  private boolean open = true;

  private FingerprintStore(Path dir, List<FingerprintPart> parts, int nextNumber) {
    this.dir = dir;
    this.parts = List.copyOf(parts);
    this.nextNumber = nextNumber;
    parts.forEach(this::cover);
  }

  /**
   * Opens the parts in {@code dir} (none if it does not exist). A damaged part is named on {@code
   * log} and renamed to {@code *.corrupt}: its blocks are then not covered, which {@link
   * FingerprintCapture#unindexedPruned} reports for those already pruned (and {@code
   * --backfill-pruned} fetches again).
   */
  public static FingerprintStore open(Path dir, PrintStream log) throws IOException {
    List<FingerprintPart> parts = new ArrayList<>();
    int next = 0;
    if (Files.isDirectory(dir)) {
      List<Path> files = new ArrayList<>();
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "part-*.fpt")) {
        ds.forEach(files::add);
      }
      files.sort(null);
      try {
        for (Path f : files) {
          Matcher m = PART.matcher(f.getFileName().toString());
          if (!m.matches()) {
            continue;
          }
          next = Math.max(next, Integer.parseInt(m.group(1)) + 1);
          try {
            parts.add(FingerprintPart.open(f));
          } catch (OwnIndexCorruptException e) {
            log.println(
                "bbf-index: fingerprint part "
                    + f
                    + " is damaged ("
                    + e.getMessage()
                    + "); set aside as .corrupt: its pruned blocks are no longer indexed");
            Files.move(
                f,
                f.resolveSibling(f.getFileName() + ".corrupt"),
                StandardCopyOption.REPLACE_EXISTING);
          }
        }
      } catch (IOException | RuntimeException e) {
        parts.forEach(FingerprintPart::close);
        throw e;
      }
    }
    return new FingerprintStore(dir, parts, next);
  }

  private void cover(FingerprintPart part) {
    for (FingerprintBlock b : part.blocks()) {
      covered.add(ByteBuffer.wrap(b.hash()));
    }
  }

  /**
   * The block of {@code txid} (internal order) among the parts, if a part holds it; a txid no part
   * holds is found with probability at most {@link #falseConfirmedBound()}.
   */
  public Optional<PrunedTx> find(byte[] txid) {
    for (FingerprintPart p : parts) {
      int ordinal = p.find(txid, 0);
      if (ordinal >= 0) {
        FingerprintBlock b = p.blocks().get(ordinal);
        return Optional.of(new PrunedTx(b.hash().clone(), b.height()));
      }
    }
    return Optional.empty();
  }

  /** Whether a part holds the txids of block {@code hash} (internal order). */
  public boolean covers(byte[] hash) {
    return covered.contains(ByteBuffer.wrap(hash));
  }

  /**
   * Writes the txids of {@code blocks} (at most {@value FingerprintFormat#MAX_BLOCKS}) as a new
   * part and serves it from now on.
   *
   * @param expectedKeys about how many txids {@code txids} feeds (sizes the shards)
   * @param tempDir where the spill goes (deleted after)
   * @return the txids stored
   */
  public synchronized long append(
      List<FingerprintBlock> blocks, long expectedKeys, TxidFeed txids, Path tempDir)
      throws IOException {
    if (!open) {
      throw new IllegalStateException("the fingerprint store " + dir + " is closed");
    }
    Files.createDirectories(dir);
    Path target = dir.resolve(String.format(Locale.ROOT, "part-%08d.fpt", nextNumber));
    long keys =
        FingerprintPartWriter.write(target, blocks, expectedKeys, txids, tempDir, SALTS.nextLong());
    nextNumber++;
    FingerprintPart part = FingerprintPart.open(target);
    List<FingerprintPart> more = new ArrayList<>(parts);
    more.add(part);
    cover(part);
    parts = List.copyOf(more);
    return keys;
  }

  /** Parts served. */
  public int parts() {
    return parts.size();
  }

  /** Txids held over all parts. */
  public long keys() {
    return parts.stream().mapToLong(FingerprintPart::keys).sum();
  }

  /** Bytes on disk over all parts. */
  public long bytes() {
    return parts.stream().mapToLong(FingerprintPart::bytes).sum();
  }

  /** Blocks covered. */
  public int blocks() {
    return covered.size();
  }

  /**
   * The probability that a lookup of a txid no part holds finds one: {@code parts x 2^-52} (each
   * part probed once, a false match needs its 52-bit fingerprint to equal the txid's).
   */
  public double falseConfirmedBound() {
    return parts.size() * Math.scalb(1.0, -FingerprintFormat.FINGERPRINT_BITS);
  }

  /** The directory. */
  public Path dir() {
    return dir;
  }

  @Override
  public synchronized void close() {
    open = false;
    List<FingerprintPart> p = parts;
    parts = List.of();
    p.forEach(FingerprintPart::close);
  }
}
