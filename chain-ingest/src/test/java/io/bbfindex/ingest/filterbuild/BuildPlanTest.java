package io.bbfindex.ingest.filterbuild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.filterbuild.SourcePlan.FileSource;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.BlockHashEntry;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a build decides to rebuild before reading the txindex, one row per situation. Every row
 * starts from a store built from a node with two block files (0: 99,000 txids, 1: 49,000; a summary
 * with capacity 200,000; 500 block hashes) and changes one thing, in the store or in the node.
 *
 * <p>The expected plan reads: the per-file filters kept and rebuilt ({@code *}: its block file
 * changed, so its txids must also reach the summary), the vanished ones (deleted), the summary's
 * fate, the block-hash filter's, and whether the txindex is scanned; then a phrase every reason
 * given must contain.
 */
class BuildPlanTest {

  private static final String DATADIR = "/data/bitcoin";
  private static final byte[] TIP = filled(0x11);
  private static final String DIGEST = "aa".repeat(32);

  /** The reasons column of a row whose plan gives no reason at all (nothing is rebuilt). */
  private static final String NONE = "(none)";

  static Stream<Arguments> situations() {
    return Stream.of(
        row(
            "fresh store",
            s -> s.noManifest("new store"),
            "keep [] | rebuild [0*, 1*] | summary REBUILD | blocks rebuild | scan",
            "file 0: new store\nfile 1: new store\nsummary: new store\nblocks: new store"),
        row(
            "manifest unreadable",
            s -> s.noManifest("manifest unusable (checksum mismatch)"),
            "keep [] | rebuild [0*, 1*] | summary REBUILD | blocks rebuild | scan",
            "manifest unusable"),
        row(
            "nothing changed",
            s -> {},
            "keep [0, 1] | rebuild [] | summary KEEP | blocks keep | no scan",
            NONE),
        row(
            "txindex caught up, no 'f' record changed",
            s -> s.txindexTip = 500,
            "keep [0, 1] | rebuild [] | summary UPDATE | blocks keep | scan",
            "whose row count changed"),
        row(
            "tip hash moved, no 'f' record changed",
            s -> s.tip = filled(0x22),
            "keep [0, 1] | rebuild [] | summary UPDATE | blocks keep | scan",
            "whose row count changed"),
        row(
            "another chain at the same path (the store's tip block unknown to the node)",
            s -> {
              s.anotherChain = true;
              s.tip = filled(0x22);
            },
            "keep [] | rebuild [0*, 1*] | summary REBUILD | blocks rebuild | scan",
            "is not in the node's block index (another chain)"),
        row(
            "last block file grown",
            s -> s.grow(1, 10, 4_000_000, 1_000),
            "keep [0] | rebuild [1*] | summary UPDATE | blocks rebuild | scan",
            "file 1: block file changed ('f' record: blocks 200 -> 210, size 90000000 ->"
                + " 94000000)"),
        row(
            "last block file grown beyond the summary's capacity",
            s -> s.grow(1, 10, 4_000_000, 101_000),
            "keep [0] | rebuild [1*] | summary REBUILD | blocks rebuild | scan",
            "summary: about 250000 txids exceed its capacity 200000"),
        row(
            "new block file",
            s -> s.addFile(2, 5, 1_000_000, 504, 800),
            "keep [0, 1] | rebuild [2*] | summary UPDATE | blocks rebuild | scan",
            "file 2: new block file\nsummary: txids of the rebuilt block files added\n"
                + "blocks: the block index changed (500 -> 505 blocks)"),
        row(
            "block file gone from the block index",
            s -> s.dropFile(1),
            "keep [0] | rebuild [] | vanished [1] | summary KEEP | blocks keep | no scan",
            NONE),
        row(
            "per-file filter corrupt",
            s -> s.badFiles.put(1, "tx-blk00001.bbf: data checksum mismatch"),
            "keep [0] | rebuild [1] | summary KEEP | blocks keep | scan",
            "file 1: tx-blk00001.bbf: data checksum mismatch"),
        row(
            "per-file filter missing and its block file grown",
            s -> {
              s.badFiles.put(1, "tx-blk00001.bbf: filter file is missing");
              s.grow(1, 10, 4_000_000, 1_000);
            },
            "keep [0] | rebuild [1*] | summary UPDATE | blocks rebuild | scan",
            "file 1: block file changed"),
        row(
            "summary missing",
            s -> s.badSummary = "tx-summary.bbf: filter file is missing",
            "keep [0, 1] | rebuild [] | summary REBUILD | blocks keep | scan",
            "summary: tx-summary.bbf: filter file is missing"),
        row(
            "block-hash filter corrupt",
            s -> s.badBlocks = "block-hashes.bbf: header checksum mismatch",
            "keep [0, 1] | rebuild [] | summary KEEP | blocks rebuild | no scan",
            "blocks: block-hashes.bbf: header checksum mismatch"),
        row(
            "target fpr changed",
            s -> s.opts = BuildOptions.defaults().withTargetFpr(0.001),
            "keep [] | rebuild [0*, 1*] | summary REBUILD | blocks rebuild | scan",
            "build options changed"),
        row(
            "salt changed",
            s -> s.opts = BuildOptions.defaults().withSalt(7),
            "keep [] | rebuild [0*, 1*] | summary REBUILD | blocks rebuild | scan",
            "build options changed"),
        row(
            "another data directory",
            s -> s.datadir = "/elsewhere",
            "keep [] | rebuild [0*, 1*] | summary REBUILD | blocks rebuild | scan",
            "another data directory (/data/bitcoin)"),
        row(
            "filter format of a newer version",
            s -> s.filterFormatVersion = 3,
            "keep [] | rebuild [0*, 1*] | summary REBUILD | blocks rebuild | scan",
            "filter format version 3 is newer than this build's 2"),
        row(
            "a store of format version 1 files is built upon, not rebuilt (they still load)",
            s -> s.filterFormatVersion = 1,
            "keep [0, 1] | rebuild [] | summary KEEP | blocks keep | no scan",
            NONE),
        row(
            "format version 2 files",
            s -> s.filterFormatVersion = 2,
            "keep [0, 1] | rebuild [] | summary KEEP | blocks keep | no scan",
            NONE),
        row(
            "unusable manifest, block file gone",
            s -> {
              s.opts = BuildOptions.defaults().withSalt(7);
              s.dropFile(1);
            },
            "keep [] | rebuild [0*] | vanished [1] | summary REBUILD | blocks rebuild | scan",
            "build options changed"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("situations")
  void decides(
      String situation, Consumer<Situation> change, String expected, String reasonsMention) {
    Situation s = new Situation();
    change.accept(s);
    BuildPlan plan = BuildPlan.decide(s.stands(), s.node(), s.datadir, s.tip, s.txindexTip, s.opts);
    assertEquals(expected, describe(plan), situation);
    String reasons = reasons(plan);
    if (reasonsMention.equals(NONE)) {
      assertEquals("", reasons, situation);
    } else {
      assertTrue(
          reasons.contains(reasonsMention),
          situation + ": '" + reasons + "' lacks '" + reasonsMention + "'");
    }
  }

  private static Arguments row(
      String situation, Consumer<Situation> change, String expected, String reason) {
    return Arguments.of(situation, change, expected, reason);
  }

  private static String describe(BuildPlan p) {
    List<String> parts = new ArrayList<>();
    parts.add("keep " + p.kept().stream().map(e -> Integer.toString(e.file())).toList());
    parts.add(
        "rebuild "
            + p.rebuild().entrySet().stream()
                .map(e -> e.getKey() + (e.getValue().contentChanged() ? "*" : ""))
                .toList());
    if (!p.vanished().isEmpty()) {
      parts.add("vanished " + p.vanished().stream().map(e -> Integer.toString(e.file())).toList());
    }
    parts.add("summary " + p.summary().action());
    parts.add("blocks " + (p.blockHashes().rebuild() ? "rebuild" : "keep"));
    parts.add(p.scanNeeded() ? "scan" : "no scan");
    return String.join(" | ", parts);
  }

  /**
   * Every reason the plan gives, one per line: per rebuilt file, the summary's, the block-hash
   * filter's.
   */
  private static String reasons(BuildPlan p) {
    List<String> out = new ArrayList<>();
    p.rebuild().forEach((f, r) -> out.add("file " + f + ": " + r.reason()));
    if (p.summary().reason() != null) {
      out.add("summary: " + p.summary().reason());
    }
    if (p.blockHashes().rebuild()) {
      out.add("blocks: " + p.blockHashes().reason());
    }
    return String.join("\n", out);
  }

  private static byte[] filled(int b) {
    byte[] h = new byte[32];
    Arrays.fill(h, (byte) b);
    return h;
  }

  /** The baseline store and node, and what a row changes of them. */
  static final class Situation {
    final List<FileSource> files =
        new ArrayList<>(
            List.of(
                new FileSource(0, 300, 130_000_000, 299, 100_000, filled(0x30)),
                new FileSource(1, 200, 90_000_000, 499, 50_000, filled(0x31))));
    int blockHashes = 500;
    boolean anotherChain;
    String blockDigest = DIGEST;
    String noManifest;
    int filterFormatVersion = 1;
    final Map<Integer, String> badFiles = new HashMap<>();
    String badSummary;
    String badBlocks;
    String datadir = DATADIR;
    byte[] tip = TIP;
    int txindexTip = 499;
    BuildOptions opts = BuildOptions.defaults();

    /** The manifest of a build from the baseline node. */
    private final Manifest built =
        new Manifest(
            1,
            1_763_700_000_000L,
            DATADIR,
            TIP,
            499,
            499,
            1,
            0,
            0.01,
            0.01,
            1.25,
            148_000,
            new SummaryEntry("tx-summary.bbf", 148_001, 200_000, 0x5),
            new BlockHashEntry("block-hashes.bbf", 500, DIGEST, 0xB),
            List.of(
                new FileEntry(0, "tx-blk00000.bbf", 99_000, 100_500, 300, 130_000_000, 299, 0xF0),
                new FileEntry(1, "tx-blk00001.bbf", 49_000, 50_300, 200, 90_000_000, 499, 0xF1)));

    void noManifest(String why) {
      noManifest = why;
    }

    /**
     * Block file {@code file} got {@code blocks} more blocks, {@code bytes} more bytes, {@code txs}
     * more txids.
     */
    void grow(int file, int blocks, long bytes, long txs) {
      FileSource f = files.stream().filter(x -> x.file() == file).findFirst().orElseThrow();
      files.set(
          files.indexOf(f),
          new FileSource(
              file,
              f.fBlocks() + blocks,
              f.fSize() + bytes,
              f.heightLast() + blocks,
              f.capacity() + txs,
              f.lastBlock()));
      blockHashes += blocks;
      blockDigest = "bb".repeat(32);
    }

    void addFile(int file, int blocks, long bytes, long heightLast, long txs) {
      files.add(new FileSource(file, blocks, bytes, heightLast, txs, filled(0x40)));
      blockHashes += blocks;
      blockDigest = "cc".repeat(32);
    }

    /**
     * The block index no longer has block file {@code file} (its block hashes stay: a row changes
     * one thing).
     */
    void dropFile(int file) {
      files.removeIf(f -> f.file() == file);
    }

    StoreState stands() {
      if (noManifest != null) {
        return StoreState.without(noManifest);
      }
      Manifest m =
          filterFormatVersion == built.filterFormatVersion()
              ? built
              : new Manifest(
                  filterFormatVersion,
                  built.createdMillis(),
                  built.datadir(),
                  built.tipHash(),
                  built.tipHeight(),
                  built.txindexTipHeight(),
                  built.derivationId(),
                  built.salt(),
                  built.targetFpr(),
                  built.summaryFpr(),
                  built.summaryHeadroom(),
                  built.records(),
                  built.summary(),
                  built.blocks(),
                  built.files());
      return new StoreState(m, null, badFiles, badSummary, badBlocks);
    }

    SourcePlan node() {
      List<byte[]> hashes =
          Stream.generate(() -> new byte[32]).limit(blockHashes - 1).collect(Collectors.toList());
      // the baseline node holds the store's tip block; another chain at the same path does not
      hashes.add(anotherChain ? filled(0x23) : TIP);
      hashes.sort(java.util.Arrays::compareUnsigned);
      int slots = files.stream().mapToInt(f -> f.file() + 1).max().orElse(0);
      return new SourcePlan(
          List.copyOf(files),
          slots,
          hashes,
          blockDigest,
          files.stream().mapToLong(FileSource::capacity).sum());
    }
  }
}
