package io.bbfindex.eth;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterFileException;
import io.bbfindex.filters.io.FilterKind;
import io.bbfindex.filters.io.FilterMetadata;
import io.bbfindex.filters.io.LoadedFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The finalized part of the chain on disk: for each fixed range of {@code 2^rangeBits} blocks a
 * blocked Bloom filter of its transaction hashes ({@code range-NNNNNNNN.bbf}, the filters'
 * checksummed file format, kind {@link FilterMetadata#KIND_TX_RANGE}) and its exact {@link
 * RangeRecord} ({@code .txr}); a summary filter over every range ({@code summary.bbf}, kind {@link
 * FilterMetadata#KIND_TX_SUMMARY}) so a negative costs one cache line whatever the number of
 * ranges; and {@code eth-manifest.txt}, which says how many ranges are complete.
 *
 * <p>Range filters are served from verified in-memory copies ({@link FilterFile#read}), as the
 * Bitcoin store's are: a filter file truncated or rewritten under a running server cannot change a
 * lookup or crash the JVM (a mapping probed by the Vector API kernel would).
 *
 * <p>Crash safety: a range's two files are written (each atomically) before the manifest that
 * counts them; the manifest and the summary are written at {@link #checkpoint()}. After a crash the
 * ranges past the manifest are fetched again, and a summary that does not cover the manifest's
 * ranges is rebuilt from the records. A damaged range (checksum, length, a filter that is not its
 * record's) is dropped with every range after it, which are then fetched again.
 *
 * <p>Threads: one writer ({@link #append}); lookups from any thread read the immutable {@link
 * Snapshot} published through a volatile field. The summary filter only ever gains bits, and keys
 * are added before the snapshot that counts their range is published, so a reader never misses a
 * published key.
 */
final class History implements AutoCloseable {
  static final String MANIFEST = "eth-manifest.txt";
  static final String SUMMARY = "summary.bbf";
  private static final int STORE_VERSION = 1;
  private static final long MIN_SUMMARY_CAPACITY = 1 << 16;

  private static final System.Logger LOG = System.getLogger(History.class.getName());

  private final Path dir;
  private final int rangeBits;
  private final double fpr;
  private final TxHash genesis;
  private final List<AutoCloseable> open = new ArrayList<>();

  // NullAway.Init: the constructor is private, and open() publishes the first snapshot before it
  // returns the History.
  @SuppressWarnings("NullAway.Init")
  private volatile Snapshot snapshot;

  private long summaryCapacity;
  private boolean dirty;

  /** One complete range: its filter and its record. */
  record Range(int index, BlockedBloomFilter filter, RangeRecord record) {}

  /** What lookups read: the complete ranges and the summary over them. */
  record Snapshot(List<Range> ranges, BlockedBloomFilter summary, long txs) {}

  private History(Path dir, int rangeBits, double fpr, TxHash genesis) {
    this.dir = dir;
    this.rangeBits = rangeBits;
    this.fpr = fpr;
    this.genesis = genesis;
  }

  /**
   * Opens the store in {@code dir} (created when missing) for the chain whose block 0 is {@code
   * genesis}.
   *
   * @throws IOException if the store belongs to another chain or another range size, or a file it
   *     counts is damaged
   */
  static History open(Path dir, int rangeBits, double fpr, TxHash genesis) throws IOException {
    Files.createDirectories(dir);
    History h = new History(dir, rangeBits, fpr, genesis);
    int ranges = 0;
    long capacity = MIN_SUMMARY_CAPACITY;
    Path manifest = dir.resolve(MANIFEST);
    if (Files.exists(manifest)) {
      Map<String, String> m = readManifest(manifest);
      if (!genesis.hex().equals(m.get("genesis"))) {
        throw new IOException(
            dir
                + " holds the filters of another chain (genesis "
                + m.get("genesis")
                + ", the node's is "
                + genesis.hex()
                + ")");
      }
      if (Integer.parseInt(m.get("range-bits")) != rangeBits) {
        throw new IOException(
            dir
                + " was built with ranges of 2^"
                + m.get("range-bits")
                + " blocks, not 2^"
                + rangeBits);
      }
      ranges = Integer.parseInt(m.get("ranges"));
      capacity = Long.parseLong(m.get("summary-capacity"));
    }
    try {
      h.load(ranges, capacity);
    } catch (IOException | RuntimeException e) {
      h.close();
      throw e;
    }
    return h;
  }

  private void load(int ranges, long capacity) throws IOException {
    List<Range> list = new ArrayList<>(ranges);
    long txs = 0;
    for (int r = 0; r < ranges; r++) {
      Range range;
      try {
        range = loadRange(r);
      } catch (IOException e) {
        // The blocks are still on the node: from a damaged range on, the ranges are fetched and
        // written again (a damaged store heals instead of stopping the service).
        LOG.log(
            System.Logger.Level.WARNING,
            "range "
                + r
                + " is damaged, rebuilding it and the "
                + (ranges - r - 1)
                + " after it: "
                + e.getMessage());
        ranges = r;
        dirty = true;
        break;
      }
      list.add(range);
      txs += range.record().txCount();
    }
    BlockedBloomFilter summary = null;
    Path summaryFile = dir.resolve(SUMMARY);
    if (ranges > 0 && Files.exists(summaryFile)) {
      try (LoadedFilter loaded = FilterFile.read(summaryFile)) {
        if (loaded.metadata().bytesCovered() == ranges && loaded.filter().count() == txs) {
          // A writable copy: the summary keeps growing as ranges complete.
          summary = BlockedBloomFilter.create(loaded.filter().geometry(), loaded.filter().salt());
          summary.union(loaded.filter());
        }
      } catch (FilterFileException e) {
        summary = null; // damaged: rebuilt from the records below
      }
    }
    summaryCapacity = Math.max(capacity, 2 * txs);
    if (summary == null) {
      summary = rebuildSummary(list, summaryCapacity);
      dirty |= ranges > 0;
    }
    snapshot = new Snapshot(List.copyOf(list), summary, txs);
  }

  private Range loadRange(int r) throws IOException {
    LoadedFilter f = FilterFile.read(filterFile(r));
    try {
      RangeRecord rec = RangeRecord.load(recordFile(r));
      if (rec.firstBlock() != (long) r << rangeBits || rec.blockCount() != 1 << rangeBits) {
        throw new IOException(
            recordFile(r)
                + " covers blocks "
                + rec.firstBlock()
                + "+"
                + rec.blockCount()
                + ", not range "
                + r);
      }
      if (f.metadata().kind() != FilterKind.TX_RANGE
          || f.metadata().blockFile() != r
          || !java.util.Arrays.equals(f.metadata().sourceTip(), rec.lastBlockHash().toBytes())) {
        throw new IOException(filterFile(r) + " is not the filter of " + recordFile(r));
      }
      open.add(f);
      return new Range(r, f.filter(), rec);
    } catch (IOException | RuntimeException e) {
      f.close();
      throw e;
    }
  }

  private BlockedBloomFilter rebuildSummary(List<Range> ranges, long capacity) {
    BlockedBloomFilter summary = BlockedBloomFilter.forKeys(capacity, fpr, 0);
    for (Range r : ranges) {
      r.record().forEachHash(key -> summary.add(key, 0));
    }
    return summary;
  }

  int rangeBits() {
    return rangeBits;
  }

  /** Complete ranges. */
  int rangeCount() {
    return snapshot.ranges().size();
  }

  /** The first block not covered: ranges * 2^rangeBits. */
  long nextBlock() {
    return (long) rangeCount() << rangeBits;
  }

  /** Hash of the last block covered, or empty when no range is complete. */
  Optional<TxHash> lastBlockHash() {
    List<Range> ranges = snapshot.ranges();
    return ranges.isEmpty()
        ? Optional.empty()
        : Optional.of(ranges.getLast().record().lastBlockHash());
  }

  Snapshot snapshot() {
    return snapshot;
  }

  /** Whether the summary may hold the key: {@code false} is certain, and costs one cache line. */
  boolean maybe(byte[] key, int offset) {
    return snapshot.summary().mightContain(key, offset);
  }

  /** The key's exact location, from the ranges whose filter says "maybe". */
  Optional<EthTxLocation> find(byte[] key, int offset) {
    Snapshot s = snapshot;
    if (!s.summary().mightContain(key, offset)) {
      return Optional.empty();
    }
    List<Range> ranges = s.ranges();
    for (int i = ranges.size() - 1; i >= 0; i--) {
      Range r = ranges.get(i);
      if (r.filter().mightContain(key, offset)) {
        Optional<EthTxLocation> hit = r.record().find(key, offset);
        if (hit.isPresent()) {
          return hit;
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Adds the next range: writes its filter and record, adds its keys to the summary and publishes
   * it to lookups. Durable only after the next {@link #checkpoint()}.
   *
   * @param blocks the {@code 2^rangeBits} blocks from {@link #nextBlock()} on, linked by parent
   *     hash
   * @throws IOException if a file cannot be written
   * @throws IllegalArgumentException if the blocks are not exactly the next range, linked
   */
  void append(List<BlockTxs> blocks) throws IOException {
    int r = rangeCount();
    long first = nextBlock();
    if (blocks.size() != 1 << rangeBits || blocks.getFirst().number() != first) {
      throw new IllegalArgumentException(
          "range " + r + " is blocks " + first + "+" + (1 << rangeBits));
    }
    TxHash parent = lastBlockHash().orElse(null);
    for (BlockTxs b : blocks) {
      if (parent != null && !b.parentHash().equals(parent)) {
        throw new IllegalArgumentException(
            "block "
                + b.number()
                + " does not follow block "
                + (b.number() - 1)
                + " (parent hash mismatch)");
      }
      parent = b.hash();
    }
    int keys = blocks.stream().mapToInt(b -> b.txs().size()).sum();
    BlockedBloomFilter filter = BlockedBloomFilter.forKeys(Math.max(1, keys), fpr, 0);
    byte[] key = new byte[TxHash.BYTES];
    for (BlockTxs b : blocks) {
      for (TxHash t : b.txs()) {
        t.copyTo(key, 0);
        filter.add(key, 0);
      }
    }
    FilterFile.write(
        filterFile(r),
        filter,
        new FilterMetadata(
            FilterKind.TX_RANGE,
            r,
            blocks.size(),
            blocks.getLast().hash().toBytes(),
            System.currentTimeMillis()));
    filter.close();
    RangeRecord.write(recordFile(r), blocks);
    LoadedFilter loaded = FilterFile.read(filterFile(r));
    open.add(loaded);
    RangeRecord record = RangeRecord.load(recordFile(r));

    Snapshot s = snapshot;
    List<Range> ranges = new ArrayList<>(s.ranges());
    ranges.add(new Range(r, loaded.filter(), record));
    long txs = s.txs() + keys;
    BlockedBloomFilter summary = s.summary();
    if (txs > summaryCapacity) {
      summaryCapacity = Math.max(2 * txs, 2 * summaryCapacity);
      summary = rebuildSummary(ranges, summaryCapacity);
    } else {
      for (BlockTxs b : blocks) {
        for (TxHash t : b.txs()) {
          t.copyTo(key, 0);
          summary.add(key, 0);
        }
      }
    }
    snapshot = new Snapshot(List.copyOf(ranges), summary, txs);
    dirty = true;
  }

  /**
   * Makes the appended ranges durable: writes the summary, then the manifest that counts them.
   *
   * @throws IOException if a file cannot be written
   */
  void checkpoint() throws IOException {
    if (!dirty) {
      return;
    }
    Snapshot s = snapshot;
    byte[] tip = lastBlockHash().map(TxHash::toBytes).orElse(new byte[32]);
    FilterFile.write(
        dir.resolve(SUMMARY),
        s.summary(),
        new FilterMetadata(
            FilterKind.TX_SUMMARY,
            FilterMetadata.NO_BLOCK_FILE,
            s.ranges().size(),
            tip,
            System.currentTimeMillis()));
    Map<String, String> m = new LinkedHashMap<>();
    m.put("store", "bbf-eth " + STORE_VERSION);
    m.put("genesis", genesis.hex());
    m.put("range-bits", Integer.toString(rangeBits));
    m.put("ranges", Integer.toString(s.ranges().size()));
    m.put("txs", Long.toString(s.txs()));
    m.put("summary-capacity", Long.toString(summaryCapacity));
    m.put("last-block-hash", HexFormat.of().formatHex(tip));
    writeManifest(dir.resolve(MANIFEST), m);
    dirty = false;
  }

  private Path filterFile(int r) {
    return dir.resolve("range-%08d.bbf".formatted(r));
  }

  private Path recordFile(int r) {
    return dir.resolve("range-%08d.txr".formatted(r));
  }

  /** {@code key value} lines, then {@code crc32c XXXXXXXX} over the lines before it. */
  private static void writeManifest(Path file, Map<String, String> m) throws IOException {
    StringBuilder sb = new StringBuilder();
    m.forEach((k, v) -> sb.append(k).append(' ').append(v).append('\n'));
    CRC32C crc = new CRC32C();
    crc.update(sb.toString().getBytes(StandardCharsets.UTF_8));
    sb.append("crc32c ").append("%08x".formatted((int) crc.getValue())).append('\n');
    RangeRecord.writeAtomically(file, sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, String> readManifest(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    int last = text.lastIndexOf("crc32c ");
    if (last < 0) {
      throw new IOException(file + ": no checksum line");
    }
    CRC32C crc = new CRC32C();
    crc.update(text.substring(0, last).getBytes(StandardCharsets.UTF_8));
    if (!text.substring(last + 7).trim().equals("%08x".formatted((int) crc.getValue()))) {
      throw new IOException(file + ": checksum mismatch");
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (String line : text.substring(0, last).split("\n")) {
      int sp = line.indexOf(' ');
      if (sp > 0) {
        m.put(line.substring(0, sp), line.substring(sp + 1));
      }
    }
    for (String k : List.of("genesis", "range-bits", "ranges", "summary-capacity")) {
      if (!m.containsKey(k)) {
        throw new IOException(file + ": no " + k + " line");
      }
    }
    return m;
  }

  @Override
  public void close() {
    for (AutoCloseable c : open) {
      try {
        c.close();
      } catch (Exception ignored) {
        // freeing a filter copy or unmapping a record cannot usefully fail
      }
    }
    open.clear();
  }
}
