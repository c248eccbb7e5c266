package io.bbfindex.ingest.ownindex;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.txindex.BlockDataTxSource;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The own index of a served node, brought up to the node's blocks without building it again: a base
 * file plus part files of the blocks added since, named by a manifest ({@link OwnIndexManifest}).
 *
 * <ul>
 *   <li>Blocks with data the files do not cover yet (the chain grew) become one new part file,
 *       built from those blocks alone; a reorg below the manifest's tip adds the blocks it
 *       activated again too, so that a txid in a disconnected block and again in an activated one
 *       is answered from the active one ({@link OwnTxLookup#find} prefers active answers).
 *   <li>More than {@value #MAX_PARTS} parts are merged: into one part, from the parts' blocks, or,
 *       once the parts hold as many txids as the base, into a new base (each txid is so rebuilt a
 *       bounded number of times as the chain grows).
 *   <li>Every new file is written under a temporary name, renamed, and only then named by the
 *       manifest, itself replaced atomically; replaced files are deleted after. So a crash at any
 *       moment leaves the old manifest and its files, or the new ones, plus stray files that the
 *       next open deletes.
 *   <li>A damaged file is named in the log: a damaged part is dropped and its blocks built into a
 *       new part; a damaged base (or blocks no longer where the base was built from, e.g. after
 *       {@code -reindex}) is a full build.
 * </ul>
 *
 * <p>Opening an existing file checks its header and shard table; a file of more than {@value
 * #EAGER_CHECK_BYTES} bytes has its shards checked by a background pass (and each before the first
 * lookup that reads it, {@link OwnIndexFile#value}); a damaged shard found that way is named in the
 * log and its file deleted, so that the next open rebuilds it (a part: its blocks only); until then
 * lookups into that shard fail naming it, the others answer. Smaller files are checked whole at
 * open, where a damaged one is dropped and rebuilt at once.
 *
 * <p>Not for concurrent use on one directory: a server opens it once, then from its one refresh
 * thread.
 */
public final class OwnIndexStore {

  /** The file name of the first base file inside the filter store's directory. */
  public static final String FILE_NAME = "own-txindex.dat";

  /** Parts kept before they are merged. */
  static final int MAX_PARTS = 4;

  /** Files up to this size are checked whole at open: 64 MiB, about 11 million txids. */
  static final long EAGER_CHECK_BYTES = 64L << 20;

  private static final String PREFIX = "own-txindex.";

  /** The names of the files this class writes (others in the directory are left alone). */
  private static final java.util.regex.Pattern OURS =
      java.util.regex.Pattern.compile("own-txindex\\.(dat|(part|base)-[0-9]+\\.dat)");

  private OwnIndexStore() {}

  /**
   * The lookup of {@code node}'s own index in the directory of {@code file}, brought up to date
   * first.
   *
   * @param file the base's default path ({@link #FILE_NAME} in the filter store's directory)
   * @param tempDir where a build spills (deleted after)
   * @param log one-line messages (what was built or merged, why, and how long it took)
   */
  public static OwnTxLookup open(NodeIndex node, Path file, Path tempDir, PrintStream log)
      throws IOException {
    long start = System.nanoTime();
    Path dir = directoryOf(file);
    Files.createDirectories(dir);
    Chain chain = new Chain(node.blocks());
    Opened o = openManifest(node, chain, dir, file, tempDir, log);
    try {
      List<BlockInfo> added = uncovered(chain, o);
      if (!added.isEmpty()) {
        addPart(node, dir, tempDir, o, added, log);
      }
      if (o.parts.size() > MAX_PARTS) {
        merge(node, chain, dir, tempDir, o, log);
      }
      deleteUnnamed(dir, o.manifest);
      log.printf(
          "bbf-index: own txid index up to date: base %s and %d part(s), %,d txids, in %d ms%n",
          o.manifest.base(), o.parts.size(), o.keys(), (System.nanoTime() - start) / 1_000_000);
      return o.lookup(node);
    } catch (IOException | RuntimeException e) {
      o.close();
      throw e;
    }
  }

  /** The blocks with data of the node's index, by hash, and which of them lie where. */
  private static final class Chain {
    final List<BlockInfo> withData = new ArrayList<>();
    final Map<ByteBuffer, BlockInfo> byHash = new HashMap<>();

    Chain(Collection<BlockInfo> all) {
      for (BlockInfo b : all) {
        byHash.put(ByteBuffer.wrap(b.hash()), b);
        if (BlockPositions.holdsData(b)) {
          withData.add(b);
        }
      }
    }

    List<BlockInfo> upTo(int file, long pos) {
      return withData.stream().filter(b -> atOrBefore(b, file, pos)).toList();
    }

    /** The listed blocks as the index has them now; empty if one has no data any more. */
    Optional<List<BlockInfo>> find(List<byte[]> hashes) {
      List<BlockInfo> out = new ArrayList<>(hashes.size());
      for (byte[] h : hashes) {
        BlockInfo b = byHash.get(ByteBuffer.wrap(h));
        if (b == null || !BlockPositions.holdsData(b)) {
          return Optional.empty();
        }
        out.add(b);
      }
      return Optional.of(out);
    }
  }

  private static Path directoryOf(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null) {
      throw new IllegalArgumentException("no directory above " + file);
    }
    return dir;
  }

  private static boolean atOrBefore(BlockInfo b, int file, long pos) {
    return b.file() < file || (b.file() == file && b.dataPos() <= pos);
  }

  /** The manifest's files, open and checked against the node's blocks. */
  private static final class Opened implements AutoCloseable {
    OwnIndexManifest manifest;
    OwnIndexFile base;
    List<BlockInfo> baseBlocks;
    final Map<String, OwnIndexFile> parts = new LinkedHashMap<>();
    final Map<String, List<BlockInfo>> partBlocks = new HashMap<>();

    Opened(OwnIndexManifest manifest, OwnIndexFile base, List<BlockInfo> baseBlocks) {
      this.manifest = manifest;
      this.base = base;
      this.baseBlocks = baseBlocks;
    }

    long keys() {
      return base.header().keyCount()
          + parts.values().stream().mapToLong(p -> p.header().keyCount()).sum();
    }

    long partKeys() {
      return parts.values().stream().mapToLong(p -> p.header().keyCount()).sum();
    }

    /** The lookup; owns the files from now on. */
    OwnTxLookup lookup(NodeIndex node) {
      List<OwnTxLookup> newer = new ArrayList<>();
      for (Map.Entry<String, OwnIndexFile> p : parts.entrySet()) {
        newer.add(
            0,
            new OwnTxLookup(
                p.getValue(),
                new BlockPositions(partBlocks.getOrDefault(p.getKey(), List.of())),
                node.blockFileReader(),
                List.of()));
      }
      return new OwnTxLookup(base, new BlockPositions(baseBlocks), node.blockFileReader(), newer);
    }

    @Override
    public void close() {
      parts.values().forEach(OwnIndexFile::close);
      base.close();
    }
  }

  /**
   * The manifest's base and parts, the damaged or outdated parts dropped (named in the log); a new
   * base built when there is no usable one.
   */
  private static Opened openManifest(
      NodeIndex node, Chain chain, Path dir, Path file, Path tempDir, PrintStream log)
      throws IOException {
    Optional<OwnIndexManifest> manifest;
    try {
      manifest = OwnIndexManifest.read(dir);
    } catch (OwnIndexCorruptException e) {
      log.println("bbf-index: " + e.getMessage() + " (the own txid index is rebuilt)");
      manifest = Optional.empty();
    }
    Optional<Opened> opened =
        manifest.isPresent()
            ? openBase(chain, dir, manifest.get(), log)
            : adoptUnlisted(node, chain, file, log);
    if (opened.isEmpty()) {
      return buildBase(node, chain, dir, file.getFileName().toString(), tempDir, log, 0);
    }
    Opened o = opened.get();
    for (OwnIndexManifest.Part p : o.manifest.parts()) {
      openPart(chain, dir, p, log)
          .ifPresent(
              f -> {
                o.parts.put(p.name(), f);
                o.partBlocks.put(p.name(), chain.find(p.blocks()).orElseThrow());
              });
    }
    return o;
  }

  private static Optional<Opened> openBase(
      Chain chain, Path dir, OwnIndexManifest m, PrintStream log) throws IOException {
    Path path = dir.resolve(m.base());
    Optional<OwnIndexFile> f = openNamed(path, log);
    if (f.isEmpty()) {
      return Optional.empty();
    }
    List<BlockInfo> blocks = chain.upTo(m.watermarkFile(), m.watermarkPos());
    if (!Arrays.equals(f.get().header().chainDigest(), ChainDigest.of(blocks))) {
      log.println(
          "bbf-index: the own txid index "
              + path
              + " was built from blocks the node no longer has where they were (rebuilding it)");
      f.get().close();
      return Optional.empty();
    }
    return Optional.of(new Opened(m, f.get(), blocks));
  }

  /**
   * A base file without a manifest (written before manifests, or its manifest lost): kept when it
   * covers exactly the node's blocks with data.
   */
  private static Optional<Opened> adoptUnlisted(
      NodeIndex node, Chain chain, Path file, PrintStream log) throws IOException {
    if (!Files.exists(file)) {
      log.println("bbf-index: building the own txid index " + file);
      return Optional.empty();
    }
    Optional<OwnIndexFile> f = openNamed(file, log);
    if (f.isEmpty()) {
      return Optional.empty();
    }
    if (!Arrays.equals(f.get().header().chainDigest(), ChainDigest.of(chain.withData))) {
      log.println(
          "bbf-index: the own txid index "
              + file
              + " has no manifest and was built at height "
              + f.get().header().tipHeight()
              + ", the node is at "
              + node.tipHeight()
              + " (rebuilding it)");
      f.get().close();
      return Optional.empty();
    }
    OwnIndexManifest m = baseManifest(node, chain.withData, file.getFileName().toString(), 0);
    m.write(directoryOf(file));
    return Optional.of(new Opened(m, f.get(), chain.withData));
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

  private static Optional<OwnIndexFile> openNamed(Path path, PrintStream log) throws IOException {
    try {
      if (Files.size(path) <= EAGER_CHECK_BYTES) {
        return Optional.of(OwnIndexFile.openVerified(path));
      }
      OwnIndexFile f = OwnIndexFile.open(path); // header and shard table; shards in the background
      verifyInBackground(f, log);
      return Optional.of(f);
    } catch (OwnIndexCorruptException e) {
      log.println("bbf-index: " + e.getMessage() + " (rebuilding it)");
      return Optional.empty();
    } catch (java.nio.file.NoSuchFileException e) {
      log.println("bbf-index: the own txid index file " + path + " is missing (rebuilding it)");
      return Optional.empty();
    }
  }

  private static Optional<OwnIndexFile> openPart(
      Chain chain, Path dir, OwnIndexManifest.Part p, PrintStream log) throws IOException {
    Optional<List<BlockInfo>> blocks = chain.find(p.blocks());
    if (blocks.isEmpty()) {
      log.println(
          "bbf-index: the own txid index part "
              + dir.resolve(p.name())
              + " lists blocks the node has no data of (rebuilding its blocks)");
      return Optional.empty();
    }
    Optional<OwnIndexFile> f = openNamed(dir.resolve(p.name()), log);
    if (f.isPresent()
        && !Arrays.equals(f.get().header().chainDigest(), ChainDigest.of(blocks.get()))) {
      log.println(
          "bbf-index: the own txid index part "
              + dir.resolve(p.name())
              + " was not built from the blocks its manifest lists (rebuilding its blocks)");
      f.get().close();
      return Optional.empty();
    }
    return f;
  }

  /** A full build of a new base from every block with data; the manifest then names only it. */
  private static Opened buildBase(
      NodeIndex node, Chain chain, Path dir, String name, Path tempDir, PrintStream log, int seq)
      throws IOException {
    CrashPoints.reach(CrashPoints.BASE_BUILD);
    Path target = dir.resolve(name);
    OwnIndexBuilder.Report r = build(node, chain.withData, target, tempDir);
    log.printf(
        "bbf-index: own txid index built: %,d txids, %,d bytes (%.2f bytes a txid) in %d ms%n",
        r.keys(), r.bytes(), r.bytesPerTxid(), r.millis());
    OwnIndexManifest m = baseManifest(node, chain.withData, name, seq);
    m.write(dir);
    return new Opened(m, OwnIndexFile.open(target), chain.withData);
  }

  private static OwnIndexManifest baseManifest(
      NodeIndex node, List<BlockInfo> blocks, String base, int seq) {
    int wf = -1;
    long wp = -1;
    for (BlockInfo b : blocks) {
      if (!atOrBefore(b, wf, wp)) {
        wf = b.file();
        wp = b.dataPos();
      }
    }
    return new OwnIndexManifest(base, wf, wp, node.tipHash(), node.tipHeight(), seq + 1, List.of());
  }

  /**
   * Blocks with data that no file covers, and the covered blocks a reorg below the manifest's tip
   * put on the active chain (their txids may be kept at a now stale position of the same file).
   */
  private static List<BlockInfo> uncovered(Chain chain, Opened o) {
    Set<ByteBuffer> covered = new HashSet<>();
    o.baseBlocks.forEach(b -> covered.add(ByteBuffer.wrap(b.hash())));
    o.partBlocks.values().forEach(l -> l.forEach(b -> covered.add(ByteBuffer.wrap(b.hash()))));
    int fork = forkHeight(chain, o.manifest.tipHash(), o.manifest.tipHeight());
    List<BlockInfo> out = new ArrayList<>();
    for (BlockInfo b : chain.withData) {
      boolean activated = b.onActiveChain() && b.height() > fork;
      if (!covered.contains(ByteBuffer.wrap(b.hash())) || activated) {
        out.add(b);
      }
    }
    return out;
  }

  /**
   * The height of the last block of the manifest's tip's chain that is still on the active chain
   * (the tip's own height when no reorg went below it).
   */
  private static int forkHeight(Chain chain, byte[] tipHash, int tipHeight) {
    BlockInfo b = chain.byHash.get(ByteBuffer.wrap(tipHash));
    if (b == null) {
      return -1; // not in the block index at all: consider every active block activated
    }
    while (!b.onActiveChain()) {
      BlockInfo parent = chain.byHash.get(ByteBuffer.wrap(b.prevHash()));
      if (parent == null) {
        return -1;
      }
      b = parent;
    }
    return Math.min(b.height(), tipHeight);
  }

  private static void addPart(
      NodeIndex node, Path dir, Path tempDir, Opened o, List<BlockInfo> blocks, PrintStream log)
      throws IOException {
    int seq = o.manifest.nextSeq();
    String name = PREFIX + "part-" + seq + ".dat";
    OwnIndexBuilder.Report r = build(node, blocks, dir.resolve(name), tempDir);
    CrashPoints.reach(CrashPoints.PART_WRITTEN);
    List<OwnIndexManifest.Part> parts = new ArrayList<>();
    for (OwnIndexManifest.Part p : o.manifest.parts()) {
      if (o.parts.containsKey(p.name())) {
        parts.add(p);
      }
    }
    parts.add(new OwnIndexManifest.Part(name, blocks.stream().map(BlockInfo::hash).toList()));
    OwnIndexFile f = OwnIndexFile.open(dir.resolve(name));
    o.manifest = o.manifest.withParts(parts, node.tipHash(), node.tipHeight(), seq + 1);
    o.manifest.write(dir);
    o.parts.put(name, f);
    o.partBlocks.put(name, blocks);
    log.printf(
        "bbf-index: own txid index part %s: %d block(s), %,d txids in %d ms (no full rebuild)%n",
        name, blocks.size(), r.keys(), r.millis());
  }

  /**
   * Merges the parts: into one part from their blocks, or into a new base once they hold as many
   * txids as the base.
   */
  private static void merge(
      NodeIndex node, Chain chain, Path dir, Path tempDir, Opened o, PrintStream log)
      throws IOException {
    long start = System.nanoTime();
    int seq = o.manifest.nextSeq();
    List<OwnIndexFile> replaced = new ArrayList<>(o.parts.values());
    if (o.partKeys() >= o.base.header().keyCount()) {
      String name = PREFIX + "base-" + seq + ".dat";
      OwnIndexBuilder.Report r = build(node, chain.withData, dir.resolve(name), tempDir);
      CrashPoints.reach(CrashPoints.MERGE_WRITTEN);
      OwnIndexManifest m = baseManifest(node, chain.withData, name, seq);
      OwnIndexFile f = OwnIndexFile.open(dir.resolve(name));
      m.write(dir);
      replaced.add(o.base);
      o.manifest = m;
      o.base = f;
      o.baseBlocks = chain.withData;
      o.parts.clear();
      o.partBlocks.clear();
      log.printf(
          "bbf-index: own txid index parts merged into a new base %s: %,d txids in %d ms%n",
          name, r.keys(), (System.nanoTime() - start) / 1_000_000);
    } else {
      Map<ByteBuffer, BlockInfo> union = new LinkedHashMap<>();
      o.partBlocks.values().forEach(l -> l.forEach(b -> union.put(ByteBuffer.wrap(b.hash()), b)));
      List<BlockInfo> blocks = List.copyOf(union.values());
      String name = PREFIX + "part-" + seq + ".dat";
      OwnIndexBuilder.Report r = build(node, blocks, dir.resolve(name), tempDir);
      CrashPoints.reach(CrashPoints.MERGE_WRITTEN);
      OwnIndexFile f = OwnIndexFile.open(dir.resolve(name));
      o.manifest =
          o.manifest.withParts(
              List.of(
                  new OwnIndexManifest.Part(name, blocks.stream().map(BlockInfo::hash).toList())),
              node.tipHash(),
              node.tipHeight(),
              seq + 1);
      o.manifest.write(dir);
      o.parts.clear();
      o.partBlocks.clear();
      o.parts.put(name, f);
      o.partBlocks.put(name, blocks);
      log.printf(
          "bbf-index: own txid index: %d parts merged into %s: %,d txids in %d ms%n",
          replaced.size(), name, r.keys(), (System.nanoTime() - start) / 1_000_000);
    }
    CrashPoints.reach(CrashPoints.MERGE_COMMITTED);
    // lookups of a server's older layers may still read them: unlinked, their mappings stay valid
    replaced.forEach(OwnIndexFile::close);
  }

  private static OwnIndexBuilder.Report build(
      NodeIndex node, List<BlockInfo> blocks, Path target, Path tempDir) throws IOException {
    BlockDataTxSource source =
        new BlockDataTxSource(
            blocks,
            node.blockFileReader(),
            node.blocksXorKey(),
            Math.max(1, Runtime.getRuntime().availableProcessors()));
    return OwnIndexBuilder.build(blocks, node.tip(), source, target, tempDir);
  }

  /**
   * Deletes the index's files the manifest does not name: left by a build, part or merge a crash
   * interrupted, or replaced by a merge.
   */
  private static void deleteUnnamed(Path dir, OwnIndexManifest m) throws IOException {
    Set<String> named = new HashSet<>();
    named.add(OwnIndexManifest.FILE_NAME);
    named.add(m.base());
    m.parts().forEach(p -> named.add(p.name()));
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, PREFIX + "*")) {
      for (Path p : s) {
        String n = p.getFileName().toString();
        if (!named.contains(n) && (n.endsWith(".tmp") || OURS.matcher(n).matches())) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
