package io.bbfindex.ingest.leveldb;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Refutes a key absent from a LevelDB snapshot with the Bloom filter blocks Bitcoin Core writes
 * into every table, in Java, before leveldbjni is asked: leveldbjni 1.8 has no filter policy, so
 * its get of a missing key reads and checksums a data block (~5 µs), where LevelDB with Core's
 * {@code NewBloomFilterPolicy(10)} would stop at the filter (~1 % false positives).
 *
 * <p>The table format (LevelDB's doc/table_format.md, table/format.cc, table/block.cc,
 * table/filter_block.cc, util/bloom.cc, util/hash.cc):
 *
 * <ul>
 *   <li>a 48-byte footer: the metaindex and index block handles (varint64 offset and size each),
 *       zero padding, the magic {@code 0xdb4775248b80fb57} (fixed64 LE);
 *   <li>a block is its contents, then a 1-byte type (0 = uncompressed; Core turns compression off)
 *       and the masked CRC32C of contents + type; contents are entries {@code varint shared |
 *       varint non_shared | varint value_length | key delta | value}, then the restart offsets
 *       (fixed32 each) and their count (fixed32);
 *   <li>the metaindex maps {@code "filter.leveldb.BuiltinBloomFilter2"} to the filter block: the
 *       filters, the fixed32 start of each, the array's offset (fixed32) and {@code base_lg} (1
 *       byte); the filter of the data block at offset {@code o} is number {@code o >> base_lg};
 *   <li>index keys are internal keys (user key + 8-byte sequence/type tag), each the first key
 *       {@code >=} every key of its data block, and the value is that block's handle;
 *   <li>a Bloom filter is the bit array then {@code k}; bit positions are {@code h, h + delta, ...}
 *       modulo the bits, with {@code h} LevelDB's Murmur-like {@code Hash} of the user key, seed
 *       {@code 0xbc9f1d34}, and {@code delta = rotate_right(h, 17)}.
 * </ul>
 *
 * <p>A lookup asks the tables LevelDB's own get would read: every level-0 table whose user-key
 * range holds the key, and in each level >= 1 the one table whose range may (ranges from the
 * MANIFEST, {@link ManifestReplay.TableFile}); in each, the index block names the one data block
 * the key can be in, and that block's filter decides. A key written to a log the snapshot still
 * replays is never refuted.
 *
 * <p>Soundness, since a "no" answers a lookup without LevelDB: a table is trusted only after its
 * footer, metaindex, index and filter blocks were read, their CRCs verified, and its filter was
 * checked against keys the table really holds (every key of up to {@link #SAMPLED_BLOCKS} data
 * blocks spread over the table, their CRCs verified too). LevelDB's {@code Hash} added the 1-3 tail
 * bytes as {@code char}, signed on x86, until it cast them to {@code uint8_t} (a txid row's key is
 * 33 bytes: one tail byte): the check tells which of the two hashes wrote a table's filter, and
 * when its keys cannot tell (no sampled key with a tail byte {@code >= 0x80}), a key is refuted
 * only if both hashes say no. Anything else (no filter block, a compressed or unknown block type, a
 * CRC mismatch, a filter that does not hold a sampled key, a table that cannot be mapped, a log
 * batch that cannot be decoded) makes the table, or the whole snapshot, "maybe" for every key:
 * never an error, never a false "no".
 *
 * <p>Tables are memory-mapped when the snapshot is taken, before leveldbjni opens the copy (its
 * open may replay the logs and compact, deleting tables; a mapping outlives the file's name), and
 * each is checked the first time a lookup needs it: taking a snapshot of mainnet's txindex (~1,400
 * tables, ~1.4 GB of filter blocks) reads nothing but the MANIFEST. Immutable once checked; a check
 * racing another on the same table does the same work twice, harmlessly.
 */
final class TableFilters implements AutoCloseable {

  /** Data blocks whose keys check a table's filter: 4 x ~80 txid rows in Core's 4 KiB blocks. */
  static final int SAMPLED_BLOCKS = 4;

  private static final String FILTER_NAME = "filter.leveldb.BuiltinBloomFilter2";
  private static final long MAGIC = 0xdb4775248b80fb57L;
  private static final int FOOTER = 48;
  private static final int TRAILER = 5;
  private static final int SEED = 0xbc9f1d34;
  private static final int M = 0xc6a4a793;
  private static final int MAX_LEVELS = 7;
  private static final int TYPE_DELETION = 0;
  private static final int TYPE_VALUE = 1;
  private static final ValueLayout.OfInt INT_LE =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG_LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** Which {@code Hash} wrote a table's filters (see the class comment). */
  enum HashVariant {
    UNSIGNED_TAIL,
    SIGNED_TAIL,
    /** The sampled keys could not tell: refute only when both say no. */
    EITHER
  }

  private final Arena arena;
  private final Table[] level0;
  private final Table[][] levels;
  private final byte[][] logKeys;
  private final boolean disabled;
  private final String disabledReason;

  private TableFilters(
      Arena arena, List<Table> tables, byte[][] logKeys, boolean disabled, String disabledReason) {
    this.arena = arena;
    this.logKeys = logKeys;
    this.disabled = disabled;
    this.disabledReason = disabledReason;
    List<Table> zero = new ArrayList<>();
    List<List<Table>> byLevel = new ArrayList<>();
    for (int l = 0; l < MAX_LEVELS; l++) {
      byLevel.add(new ArrayList<>());
    }
    for (Table t : tables) {
      if (t.file.level() == 0) {
        zero.add(t);
      } else {
        byLevel.get(Math.min(t.file.level(), MAX_LEVELS - 1)).add(t);
      }
    }
    this.level0 = zero.toArray(Table[]::new);
    this.levels = new Table[MAX_LEVELS][];
    for (int l = 0; l < MAX_LEVELS; l++) {
      List<Table> ts = byLevel.get(l);
      ts.sort(Comparator.comparing(t -> t.file.smallest(), TableFilters::compareInternalUser));
      levels[l] = ts.toArray(Table[]::new);
    }
  }

  /**
   * Maps the live tables of a snapshot and reads the keys of the logs it still replays.
   *
   * @param dir the snapshot's directory, holding the tables as {@code NNNNNN.sst}
   * @param live the MANIFEST's live tables
   * @param logs the contents of the logs still to replay (cut after their last intact record)
   */
  static TableFilters open(Path dir, ManifestReplay.LiveFiles live, Collection<byte[]> logs) {
    Arena arena = Arena.ofShared();
    List<Table> tables = new ArrayList<>();
    for (ManifestReplay.TableFile f : live.files().values()) {
      Path sst = dir.resolve(String.format(Locale.ROOT, "%06d.sst", f.number()));
      MemorySegment seg = MemorySegment.NULL;
      String problem = "";
      try (FileChannel ch = FileChannel.open(sst, StandardOpenOption.READ)) {
        long size = ch.size();
        if (size != f.fileSize()) {
          problem = "is " + size + " bytes, the MANIFEST says " + f.fileSize();
        } else {
          seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        }
      } catch (IOException | UnsupportedOperationException e) {
        problem = "could not be mapped: " + e;
      }
      tables.add(new Table(f, seg, problem));
    }
    // a list sorted once, not a sorted set: a txindex log can hold ~100,000 keys at each start
    List<byte[]> keys = new ArrayList<>();
    String bad = "";
    for (byte[] log : logs) {
      for (byte[] batch : LevelDbLog.read(log).records()) {
        if (!batchKeys(batch, keys)) {
          bad = "a write batch of a log to replay could not be decoded";
        }
      }
    }
    return new TableFilters(
        arena, tables, sortedDistinct(keys), !bad.isEmpty(), bad.isEmpty() ? "" : bad);
  }

  /** {@code keys} in unsigned byte order, each once: what {@link #mayContain} searches. */
  private static byte[][] sortedDistinct(List<byte[]> keys) {
    byte[][] sorted = keys.toArray(byte[][]::new);
    Arrays.sort(sorted, Arrays::compareUnsigned);
    int n = 0;
    for (byte[] k : sorted) {
      if (n == 0 || !Arrays.equals(sorted[n - 1], k)) {
        sorted[n++] = k;
      }
    }
    return Arrays.copyOf(sorted, n);
  }

  /** Adds the keys of one WriteBatch (db/write_batch.cc); false if it does not decode. */
  private static boolean batchKeys(byte[] batch, Collection<byte[]> keys) {
    MemorySegment s = MemorySegment.ofArray(batch);
    long[] pos = {12}; // sequence (fixed64), count (fixed32)
    if (batch.length < 12) {
      return false;
    }
    int count = s.get(INT_LE, 8);
    try {
      for (int i = 0; i < count; i++) {
        int type = batch[(int) pos[0]++];
        if (type != TYPE_VALUE && type != TYPE_DELETION) {
          return false;
        }
        int keyLength = (int) varint(s, pos);
        keys.add(Arrays.copyOfRange(batch, (int) pos[0], Math.addExact((int) pos[0], keyLength)));
        pos[0] += keyLength;
        if (type == TYPE_VALUE) {
          long valueLength = varint(s, pos); // before the +=, which would read pos[0] first
          pos[0] += valueLength;
        }
      }
      return pos[0] == batch.length;
    } catch (IndexOutOfBoundsException | IllegalArgumentException | ArithmeticException e) {
      return false;
    }
  }

  /**
   * False only when {@code userKey} is certainly not in the snapshot: no log still to replay holds
   * it and the filter of every table that could hold it says no. Thread-safe.
   */
  boolean mayContain(byte[] userKey) {
    if (disabled
        || (logKeys.length > 0
            && Arrays.binarySearch(logKeys, userKey, Arrays::compareUnsigned) >= 0)) {
      return true;
    }
    int unsigned = hash(userKey, false);
    int signed = hasHighTail(userKey) ? hash(userKey, true) : unsigned;
    try {
      for (Table t : level0) {
        if (t.file.covers(userKey) && t.mayContain(userKey, unsigned, signed)) {
          return true;
        }
      }
      for (int l = 1; l < MAX_LEVELS; l++) {
        Table t = candidate(levels[l], userKey);
        if (t != null && t.mayContain(userKey, unsigned, signed)) {
          return true;
        }
      }
    } catch (IndexOutOfBoundsException | IllegalStateException e) {
      return true; // a table that lied about its layout (or a snapshot being closed): maybe
    }
    return false;
  }

  /** The table of a level >= 1 whose range may hold {@code userKey} (ranges are disjoint). */
  private static @Nullable Table candidate(Table[] level, byte[] userKey) {
    int lo = 0;
    int hi = level.length;
    while (lo < hi) { // first table whose largest user key >= userKey
      int mid = (lo + hi) >>> 1;
      if (ManifestReplay.TableFile.compareUserKey(level[mid].file.largest(), userKey) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < level.length && level[lo].file.covers(userKey) ? level[lo] : null;
  }

  /**
   * One line per table ({@code 000005: trusted, unsigned tail, 312 keys checked} or {@code 000007:
   * maybe for every key: no filter block}), checking each table not checked yet; for tests and
   * reports.
   */
  List<String> verdicts() {
    List<String> out = new ArrayList<>();
    if (disabled) {
      out.add("every key maybe: " + disabledReason);
    }
    for (Table[] level : levels) {
      for (Table t : level) {
        out.add(t.verdict());
      }
    }
    for (Table t : level0) {
      out.add(t.verdict());
    }
    out.sort(null);
    return out;
  }

  /** How many tables' filters are trusted (checks every table not checked yet). */
  int trustedTables() {
    int n = 0;
    for (Table[] level : levels) {
      for (Table t : level) {
        n += t.filter().trusted() ? 1 : 0;
      }
    }
    for (Table t : level0) {
      n += t.filter().trusted() ? 1 : 0;
    }
    return n;
  }

  /** Keys of the logs still to replay (never refuted). */
  int logKeys() {
    return logKeys.length;
  }

  /** Unmaps the tables; a lookup after this throws {@link IllegalStateException}. */
  @Override
  public void close() {
    arena.close();
  }

  /**
   * A live table: its MANIFEST entry, its mapping, and its checked filter once a lookup needs it.
   */
  private static final class Table {
    final ManifestReplay.TableFile file;
    final MemorySegment seg;
    final String mapProblem;
    private volatile @Nullable Filter filter;

    Table(ManifestReplay.TableFile file, MemorySegment seg, String mapProblem) {
      this.file = file;
      this.seg = seg;
      this.mapProblem = mapProblem;
    }

    Filter filter() {
      Filter f = filter;
      if (f == null) {
        f = mapProblem.isEmpty() ? Filter.check(seg) : Filter.distrust(mapProblem);
        filter = f;
      }
      return f;
    }

    boolean mayContain(byte[] userKey, int unsigned, int signed) {
      return filter().mayContain(userKey, unsigned, signed);
    }

    String verdict() {
      return String.format(Locale.ROOT, "%06d: %s", file.number(), filter().describe());
    }
  }

  /** A table's index and filter blocks, checked; or why the table is trusted for nothing. */
  private static final class Filter {
    private final String distrust;
    private final HashVariant variant;
    private final int keysChecked;
    private final MemorySegment index;
    private final long restarts;
    private final int numRestarts;
    private final MemorySegment filters;
    private final long arrayOffset;
    private final long numFilters;
    private final int baseLg;

    private Filter(
        String distrust,
        HashVariant variant,
        int keysChecked,
        MemorySegment index,
        MemorySegment filters) {
      this.distrust = distrust;
      this.variant = variant;
      this.keysChecked = keysChecked;
      this.index = index;
      this.filters = filters;
      if (distrust.isEmpty()) {
        long n = index.byteSize();
        this.numRestarts = index.get(INT_LE, n - 4);
        this.restarts = n - 4 - 4L * numRestarts;
        long f = filters.byteSize();
        this.baseLg = filters.get(ValueLayout.JAVA_BYTE, f - 1) & 0xff;
        this.arrayOffset = Integer.toUnsignedLong(filters.get(INT_LE, f - 5));
        this.numFilters = (f - 5 - arrayOffset) / 4;
      } else {
        this.numRestarts = 0;
        this.restarts = 0;
        this.baseLg = 0;
        this.arrayOffset = 0;
        this.numFilters = 0;
      }
    }

    static Filter distrust(String why) {
      return new Filter(why, HashVariant.EITHER, 0, MemorySegment.NULL, MemorySegment.NULL);
    }

    boolean trusted() {
      return distrust.isEmpty();
    }

    String describe() {
      return trusted()
          ? "trusted, "
              + variant.name().toLowerCase(Locale.ROOT).replace('_', ' ')
              + ", "
              + keysChecked
              + " keys checked"
          : "maybe for every key: " + distrust;
    }

    /** Reads and checks the table in {@code seg}; never throws. */
    static Filter check(MemorySegment seg) {
      try {
        return checked(seg);
      } catch (IndexOutOfBoundsException | IllegalArgumentException | ArithmeticException e) {
        return distrust("malformed: " + e.getMessage());
      }
    }

    private static Filter checked(MemorySegment seg) {
      long size = seg.byteSize();
      if (size < FOOTER) {
        return distrust("shorter than a footer");
      }
      if (seg.get(LONG_LE, size - 8) != MAGIC) {
        return distrust("no table magic");
      }
      long[] pos = {size - FOOTER};
      long metaOffset = varint(seg, pos);
      long metaSize = varint(seg, pos);
      long indexOffset = varint(seg, pos);
      long indexSize = varint(seg, pos);
      MemorySegment meta = block(seg, metaOffset, metaSize);
      MemorySegment index = block(seg, indexOffset, indexSize);
      if (meta == null || index == null) {
        return distrust("metaindex or index block corrupt, compressed or out of the file");
      }
      long[] filterHandle = findMeta(meta);
      if (filterHandle == null) {
        return distrust("no " + FILTER_NAME + " block");
      }
      MemorySegment filters = block(seg, filterHandle[0], filterHandle[1]);
      if (filters == null) {
        return distrust("filter block corrupt, compressed or out of the file");
      }
      if (filters.byteSize() < 5
          || Integer.toUnsignedLong(filters.get(INT_LE, filters.byteSize() - 5))
              > filters.byteSize() - 5) {
        return distrust("filter block malformed");
      }
      if (index.byteSize() < 4
          || 4L * Integer.toUnsignedLong(index.get(INT_LE, index.byteSize() - 4))
              > index.byteSize() - 4) {
        return distrust("index block malformed");
      }
      Filter f = new Filter("", HashVariant.EITHER, 0, index, filters);
      return f.sampled(seg);
    }

    /**
     * This filter checked against every key of up to {@link #SAMPLED_BLOCKS} data blocks: the hash
     * variant they prove, or distrust when a key the table holds is not in its filter.
     */
    private Filter sampled(MemorySegment seg) {
      boolean unsignedHolds = true;
      boolean signedHolds = true;
      boolean telling = false;
      int checked = 0;
      int samples = (int) Math.min(SAMPLED_BLOCKS, numRestarts);
      for (int s = 0; s < samples; s++) {
        int r = samples == 1 ? 0 : (int) ((long) s * (numRestarts - 1) / (samples - 1));
        long[] pos = {restartOffset(r)};
        if (varint(index, pos) != 0) {
          return distrust("index restart entry shares a prefix");
        }
        long keyLength = varint(index, pos);
        varint(index, pos); // value length
        pos[0] += keyLength;
        long blockOffset = varint(index, pos);
        long blockSize = varint(index, pos);
        MemorySegment data = block(seg, blockOffset, blockSize);
        if (data == null) {
          return distrust(
              "data block at " + blockOffset + " corrupt, compressed or out of the file");
        }
        for (byte[] key : userKeys(data)) {
          int u = hash(key, false);
          boolean high = hasHighTail(key);
          unsignedHolds &= filterMayMatch(blockOffset, u);
          signedHolds &= filterMayMatch(blockOffset, high ? hash(key, true) : u);
          telling |= high;
          checked++;
        }
      }
      if (checked == 0) {
        return distrust("no key to check its filter against");
      }
      HashVariant v;
      if (!telling && unsignedHolds) {
        v = HashVariant.EITHER;
      } else if (unsignedHolds) {
        v = HashVariant.UNSIGNED_TAIL;
      } else if (signedHolds) {
        v = HashVariant.SIGNED_TAIL;
      } else {
        return distrust("its filter does not hold keys the table holds");
      }
      return new Filter("", v, checked, index, filters);
    }

    private long restartOffset(int r) {
      return Integer.toUnsignedLong(index.get(INT_LE, restarts + 4L * r));
    }

    boolean mayContain(byte[] userKey, int unsigned, int signed) {
      if (!trusted()) {
        return true;
      }
      long handle = seekIndex(userKey);
      if (handle < 0) {
        return false; // past the table's last key: LevelDB's get finds nothing here either
      }
      return switch (variant) {
        case UNSIGNED_TAIL -> filterMayMatch(handle, unsigned);
        case SIGNED_TAIL -> filterMayMatch(handle, signed);
        case EITHER -> filterMayMatch(handle, unsigned) || filterMayMatch(handle, signed);
      };
    }

    /**
     * The offset of the data block that may hold {@code userKey}: that of the first index entry
     * whose internal key is {@code >= (userKey, max sequence)}, which is the first whose user key
     * is {@code >= userKey}; -1 when there is none. Block::Iter::Seek: binary search of the restart
     * points, then a scan.
     */
    private long seekIndex(byte[] userKey) {
      int lo = 0;
      int hi = numRestarts - 1;
      while (lo < hi) { // last restart whose key < target
        int mid = (lo + hi + 1) >>> 1;
        long[] pos = {restartOffset(mid)};
        varint(index, pos); // shared: 0 at a restart
        long keyLength = varint(index, pos);
        varint(index, pos);
        if (compareUser(index, pos[0], keyLength - 8, userKey) < 0) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      byte[] key = new byte[0];
      long[] pos = {restartOffset(lo)};
      while (pos[0] < restarts) {
        int shared = (int) varint(index, pos);
        int nonShared = (int) varint(index, pos);
        varint(index, pos); // value length
        byte[] k = Arrays.copyOf(key, Math.addExact(shared, nonShared));
        MemorySegment.copy(index, ValueLayout.JAVA_BYTE, pos[0], k, shared, nonShared);
        pos[0] += nonShared;
        long offset = varint(index, pos);
        varint(index, pos); // size
        if (k.length < 8) {
          throw new IndexOutOfBoundsException("index key shorter than its tag");
        }
        if (Arrays.compareUnsigned(k, 0, k.length - 8, userKey, 0, userKey.length) >= 0) {
          return offset;
        }
        key = k;
      }
      return -1;
    }

    /** FilterBlockReader::KeyMayMatch with BloomFilterPolicy::KeyMayMatch. */
    private boolean filterMayMatch(long blockOffset, int h) {
      long i = blockOffset >>> Math.min(baseLg, 63);
      if (i >= numFilters) {
        return true; // errors are potential matches, as in LevelDB
      }
      long start = Integer.toUnsignedLong(filters.get(INT_LE, arrayOffset + i * 4));
      long limit = Integer.toUnsignedLong(filters.get(INT_LE, arrayOffset + i * 4 + 4));
      if (start == limit) {
        return false; // an empty filter matches no key
      }
      if (start > limit || limit > arrayOffset) {
        return true;
      }
      long len = limit - start;
      if (len < 2) {
        return false;
      }
      long bits = (len - 1) * 8;
      int k = filters.get(ValueLayout.JAVA_BYTE, limit - 1) & 0xff;
      if (k > 30) {
        return true; // reserved for short Bloom filters' future encodings
      }
      int delta = (h >>> 17) | (h << 15);
      for (int j = 0; j < k; j++) {
        long bit = Integer.toUnsignedLong(h) % bits;
        if ((filters.get(ValueLayout.JAVA_BYTE, start + bit / 8) & (1 << (bit % 8))) == 0) {
          return false;
        }
        h += delta;
      }
      return true;
    }
  }

  /**
   * The contents of the block at {@code offset}, {@code size}, or null when it is out of the file,
   * not of type 0 (uncompressed) or fails its CRC.
   */
  private static @Nullable MemorySegment block(MemorySegment seg, long offset, long size) {
    if (offset < 0 || size < 0 || offset > seg.byteSize() - FOOTER - TRAILER - size) {
      return null;
    }
    if (seg.get(ValueLayout.JAVA_BYTE, offset + size) != 0) {
      return null;
    }
    CRC32C crc = new CRC32C();
    crc.update(seg.asSlice(offset, size + 1).asByteBuffer());
    return LevelDbLog.masked(crc) == seg.get(INT_LE, offset + size + 1)
        ? seg.asSlice(offset, size)
        : null;
  }

  /**
   * The user keys of every data block of {@code table}, by the block's offset, read through its
   * index as the check reads them. WHY: tests rebuild a table's filters from its own keys.
   *
   * @throws IllegalArgumentException if a block is corrupt, compressed or out of the file
   */
  static SortedMap<Long, List<byte[]>> userKeysByDataBlock(MemorySegment table) {
    long[] pos = {table.byteSize() - FOOTER};
    varint(table, pos); // metaindex offset
    varint(table, pos); // metaindex size
    MemorySegment index = requireBlock(table, varint(table, pos), varint(table, pos));
    SortedMap<Long, List<byte[]>> out = new TreeMap<>();
    for (Entry e : entries(index)) {
      long[] handle = {e.valueOffset};
      long offset = varint(index, handle);
      out.put(offset, userKeys(requireBlock(table, offset, varint(index, handle))));
    }
    return out;
  }

  private static MemorySegment requireBlock(MemorySegment table, long offset, long size) {
    MemorySegment b = block(table, offset, size);
    if (b == null) {
      throw new IllegalArgumentException("block at " + offset + " corrupt, compressed or outside");
    }
    return b;
  }

  /** The filter block's handle {offset, size} in a metaindex block, or null. */
  private static long @Nullable [] findMeta(MemorySegment meta) {
    byte[] want = FILTER_NAME.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    for (Entry e : entries(meta)) {
      if (Arrays.equals(e.key, want)) {
        long[] pos = {e.valueOffset};
        return new long[] {varint(meta, pos), varint(meta, pos)};
      }
    }
    return null;
  }

  /** The user keys (internal keys without their 8-byte tag) of a data block, in order. */
  private static List<byte[]> userKeys(MemorySegment data) {
    List<byte[]> out = new ArrayList<>();
    for (Entry e : entries(data)) {
      if (e.key.length < 8) {
        throw new IllegalArgumentException("internal key shorter than its tag");
      }
      out.add(Arrays.copyOf(e.key, e.key.length - 8));
    }
    return out;
  }

  private record Entry(byte[] key, long valueOffset) {}

  /** Every entry of a block, keys rebuilt from their shared prefixes. */
  private static List<Entry> entries(MemorySegment block) {
    long n = block.byteSize();
    if (n < 4) {
      throw new IllegalArgumentException("block shorter than its restart count");
    }
    long end = n - 4 - 4 * Integer.toUnsignedLong(block.get(INT_LE, n - 4));
    if (end < 0) {
      throw new IllegalArgumentException("restart array larger than the block");
    }
    List<Entry> out = new ArrayList<>();
    byte[] key = new byte[0];
    long[] pos = {0};
    while (pos[0] < end) {
      int shared = Math.toIntExact(varint(block, pos));
      int nonShared = Math.toIntExact(varint(block, pos));
      long valueLength = varint(block, pos);
      if (shared > key.length || nonShared > end - pos[0]) {
        throw new IllegalArgumentException("block entry past its block");
      }
      byte[] k = Arrays.copyOf(key, shared + nonShared);
      MemorySegment.copy(block, ValueLayout.JAVA_BYTE, pos[0], k, shared, nonShared);
      pos[0] += nonShared;
      out.add(new Entry(k, pos[0]));
      pos[0] += valueLength;
      key = k;
    }
    return out;
  }

  /** A varint64 at {@code pos[0]}, which it advances. */
  private static long varint(MemorySegment s, long[] pos) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = s.get(ValueLayout.JAVA_BYTE, pos[0]++);
      v |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("varint longer than 64 bits");
  }

  /** {@code s[off, off + userLength)} against {@code key}, unsigned bytewise. */
  private static int compareUser(MemorySegment s, long off, long userLength, byte[] key) {
    if (userLength < 0) {
      throw new IndexOutOfBoundsException("index key shorter than its tag");
    }
    long n = Math.min(userLength, key.length);
    for (int i = 0; i < n; i++) {
      int a = s.get(ValueLayout.JAVA_BYTE, off + i) & 0xff;
      int b = key[i] & 0xff;
      if (a != b) {
        return a - b;
      }
    }
    return Long.compare(userLength, key.length);
  }

  private static int compareInternalUser(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, 0, Math.max(0, a.length - 8), b, 0, Math.max(0, b.length - 8));
  }

  /** Whether {@code key}'s 1-3 tail bytes (after its 4-byte words) hold one {@code >= 0x80}. */
  static boolean hasHighTail(byte[] key) {
    for (int i = key.length & ~3; i < key.length; i++) {
      if (key[i] < 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * LevelDB's {@code Hash(data, n, 0xbc9f1d34)} (util/hash.cc). {@code signedTail}: the tail bytes
   * added as signed {@code char}s, as LevelDB did before it cast them to {@code uint8_t}.
   */
  static int hash(byte[] d, boolean signedTail) {
    int n = d.length;
    int h = SEED ^ (n * M);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
      int w = (d[i] & 0xff) | (d[i + 1] & 0xff) << 8 | (d[i + 2] & 0xff) << 16 | d[i + 3] << 24;
      h += w;
      h *= M;
      h ^= h >>> 16;
    }
    int rest = n - i;
    if (rest > 0) {
      if (rest == 3) {
        h += tail(d[i + 2], signedTail) << 16;
      }
      if (rest >= 2) {
        h += tail(d[i + 1], signedTail) << 8;
      }
      h += tail(d[i], signedTail);
      h *= M;
      h ^= h >>> 24;
    }
    return h;
  }

  private static int tail(byte b, boolean signed) {
    return signed ? b : b & 0xff;
  }
}
