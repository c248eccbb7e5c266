package io.bbfindex.benchmarks.store;

import java.io.IOException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Google's LevelDB as Debian ships it ({@code libleveldb1d}, 1.23), called through its C API
 * ({@code leveldb/c.h}) with the JDK's foreign function interface: the one LevelDB a benchmark can
 * reach that has Bitcoin Core's {@code NewBloomFilterPolicy(10)}, which leveldbjni 1.8 (the
 * product's reader) lacks. Opened as Core opens its indexes: no compression, an LRU block cache,
 * reads that verify checksums; the filter policy is a choice of {@link #open}.
 *
 * <p>A benchmark's tool, not the product's: one thread at a time, keys and values copied through
 * one reused native buffer.
 */
final class NativeLevelDb implements AutoCloseable {

  /** Where Debian's package puts the library (amd64 and arm64), newest name first. */
  private static final List<String> CANDIDATES =
      List.of(
          "/usr/lib/x86_64-linux-gnu/libleveldb.so.1d",
          "/usr/lib/aarch64-linux-gnu/libleveldb.so.1d",
          "/usr/lib/x86_64-linux-gnu/libleveldb.so.1",
          "/usr/lib/x86_64-linux-gnu/libleveldb.so");

  private static final ValueLayout.OfLong SIZE_T = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final AddressLayout A = ValueLayout.ADDRESS;
  private static final java.lang.foreign.AddressLayout ADDRESS = ValueLayout.ADDRESS;

  /** The C functions used, bound once per process. */
  private static final class Api {
    final MethodHandle optionsCreate;
    final MethodHandle optionsSetCreateIfMissing;
    final MethodHandle optionsSetFilterPolicy;
    final MethodHandle optionsSetCache;
    final MethodHandle optionsSetCompression;
    final MethodHandle optionsSetMaxFileSize;
    final MethodHandle filterPolicyCreateBloom;
    final MethodHandle cacheCreateLru;
    final MethodHandle open;
    final MethodHandle close;
    final MethodHandle get;
    final MethodHandle put;
    final MethodHandle free;
    final MethodHandle readOptionsCreate;
    final MethodHandle readOptionsSetVerifyChecksums;
    final MethodHandle writeOptionsCreate;
    final MethodHandle compactRange;
    final MethodHandle iteratorCreate;
    final MethodHandle iteratorSeekToFirst;
    final MethodHandle iteratorValid;
    final MethodHandle iteratorNext;
    final MethodHandle iteratorKey;
    final MethodHandle iteratorValue;
    final MethodHandle iteratorDestroy;

    Api(Path library) {
      Binder b = new Binder(library);
      optionsCreate = b.fn("leveldb_options_create", A);
      optionsSetCreateIfMissing = b.fn("leveldb_options_set_create_if_missing", null, A, BYTE);
      optionsSetFilterPolicy = b.fn("leveldb_options_set_filter_policy", null, A, A);
      optionsSetCache = b.fn("leveldb_options_set_cache", null, A, A);
      optionsSetCompression = b.fn("leveldb_options_set_compression", null, A, INT);
      optionsSetMaxFileSize = b.fn("leveldb_options_set_max_file_size", null, A, SIZE_T);
      filterPolicyCreateBloom = b.fn("leveldb_filterpolicy_create_bloom", A, INT);
      cacheCreateLru = b.fn("leveldb_cache_create_lru", A, SIZE_T);
      open = b.fn("leveldb_open", A, A, A, A);
      close = b.fn("leveldb_close", null, A);
      get = b.fn("leveldb_get", A, A, A, A, SIZE_T, A, A);
      put = b.fn("leveldb_put", null, A, A, A, SIZE_T, A, SIZE_T, A);
      free = b.fn("leveldb_free", null, A);
      readOptionsCreate = b.fn("leveldb_readoptions_create", A);
      readOptionsSetVerifyChecksums =
          b.fn("leveldb_readoptions_set_verify_checksums", null, A, BYTE);
      writeOptionsCreate = b.fn("leveldb_writeoptions_create", A);
      compactRange = b.fn("leveldb_compact_range", null, A, A, SIZE_T, A, SIZE_T);
      iteratorCreate = b.fn("leveldb_create_iterator", A, A, A);
      iteratorSeekToFirst = b.fn("leveldb_iter_seek_to_first", null, A);
      iteratorValid = b.fn("leveldb_iter_valid", BYTE, A);
      iteratorNext = b.fn("leveldb_iter_next", null, A);
      iteratorKey = b.fn("leveldb_iter_key", A, A, A);
      iteratorValue = b.fn("leveldb_iter_value", A, A, A);
      iteratorDestroy = b.fn("leveldb_iter_destroy", null, A);
    }
  }

  /** Binds C functions of the library by name: the result's layout (null: void), then the args'. */
  private static final class Binder {
    private final Linker linker = Linker.nativeLinker();
    private final SymbolLookup lib;

    Binder(Path library) {
      this.lib = SymbolLookup.libraryLookup(library, Arena.global());
    }

    MethodHandle fn(String name, @Nullable MemoryLayout result, MemoryLayout... args) {
      FunctionDescriptor d =
          result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
      return linker.downcallHandle(
          lib.find(name).orElseThrow(() -> new IllegalStateException("no " + name + " in LevelDB")),
          d);
    }
  }

  private static volatile @Nullable Api api;

  private final Api c;
  private final Arena arena = Arena.ofConfined();
  private final MemorySegment db;
  private final MemorySegment readOptions;
  private final MemorySegment writeOptions;
  private final MemorySegment key;
  private final MemorySegment valueLength;
  private final MemorySegment error;

  private NativeLevelDb(Api c, MemorySegment db) throws Throwable {
    this.c = c;
    this.db = db;
    this.readOptions = (MemorySegment) c.readOptionsCreate.invokeExact();
    c.readOptionsSetVerifyChecksums.invokeExact(readOptions, (byte) 1); // as Core reads
    this.writeOptions = (MemorySegment) c.writeOptionsCreate.invokeExact();
    this.key = arena.allocate(256);
    this.valueLength = arena.allocate(SIZE_T);
    this.error = arena.allocate(ADDRESS);
  }

  /** The library's path, or empty when Debian's {@code libleveldb1d} is not installed. */
  static Optional<Path> library() {
    return CANDIDATES.stream().map(Path::of).filter(Files::isRegularFile).findFirst();
  }

  /**
   * Opens (or creates) the database in {@code dir}, with Core's Bloom filter policy of 10 bits a
   * key when {@code bloomBitsPerKey > 0}, an LRU block cache of {@code cacheBytes}, no compression,
   * and tables of up to 32 MiB (Core's {@code DBWRAPPER_MAX_FILE_SIZE}).
   */
  static NativeLevelDb open(Path library, Path dir, int bloomBitsPerKey, long cacheBytes)
      throws IOException {
    Api c = api;
    if (c == null) {
      synchronized (NativeLevelDb.class) {
        c = api;
        if (c == null) {
          c = new Api(library);
          api = c;
        }
      }
    }
    try (Arena temp = Arena.ofConfined()) {
      MemorySegment options = (MemorySegment) c.optionsCreate.invokeExact();
      c.optionsSetCreateIfMissing.invokeExact(options, (byte) 1);
      c.optionsSetCompression.invokeExact(options, 0);
      c.optionsSetMaxFileSize.invokeExact(options, 32L << 20);
      c.optionsSetCache.invokeExact(
          options, (MemorySegment) c.cacheCreateLru.invokeExact(cacheBytes));
      if (bloomBitsPerKey > 0) {
        c.optionsSetFilterPolicy.invokeExact(
            options, (MemorySegment) c.filterPolicyCreateBloom.invokeExact(bloomBitsPerKey));
      }
      MemorySegment err = temp.allocate(ADDRESS);
      err.set(ADDRESS, 0, MemorySegment.NULL);
      MemorySegment db =
          (MemorySegment) c.open.invokeExact(options, temp.allocateFrom(dir.toString()), err);
      check(c, err, "open " + dir);
      return new NativeLevelDb(c, db);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** Copies every record of {@code from} into this database, then compacts it into tables. */
  void copyFrom(NativeLevelDb from) {
    try {
      MemorySegment it = (MemorySegment) c.iteratorCreate.invokeExact(from.db, from.readOptions);
      c.iteratorSeekToFirst.invokeExact(it);
      while ((byte) c.iteratorValid.invokeExact(it) != 0) {
        MemorySegment k = (MemorySegment) c.iteratorKey.invokeExact(it, valueLength);
        long kl = valueLength.get(SIZE_T, 0);
        MemorySegment v = (MemorySegment) c.iteratorValue.invokeExact(it, valueLength);
        long vl = valueLength.get(SIZE_T, 0);
        error.set(ADDRESS, 0, MemorySegment.NULL);
        c.put.invokeExact(db, writeOptions, k, kl, v, vl, error);
        check(c, error, "put");
        c.iteratorNext.invokeExact(it);
      }
      c.iteratorDestroy.invokeExact(it);
      c.compactRange.invokeExact(db, MemorySegment.NULL, 0L, MemorySegment.NULL, 0L);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** The value of {@code k}, copied out of LevelDB's buffer (then freed), or null when absent. */
  byte @Nullable [] get(byte[] k) {
    try {
      MemorySegment.copy(k, 0, key, ValueLayout.JAVA_BYTE, 0, k.length);
      error.set(ADDRESS, 0, MemorySegment.NULL);
      MemorySegment value =
          (MemorySegment)
              c.get.invokeExact(db, readOptions, key, (long) k.length, valueLength, error);
      check(c, error, "get");
      if (value.equals(MemorySegment.NULL)) {
        return null;
      }
      byte[] out = value.reinterpret(valueLength.get(SIZE_T, 0)).toArray(ValueLayout.JAVA_BYTE);
      c.free.invokeExact(value);
      return out;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** Whether {@code k} is a key of the database (a get; the value copied out, then freed). */
  boolean contains(byte[] k) {
    return get(k) != null;
  }

  private static void check(Api c, MemorySegment err, String what) throws IOException {
    MemorySegment message = err.get(ADDRESS, 0);
    if (!message.equals(MemorySegment.NULL)) {
      String text = message.reinterpret(4096).getString(0);
      try {
        c.free.invokeExact(message);
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
      throw new IOException("LevelDB " + what + ": " + text);
    }
  }

  @Override
  public void close() {
    try {
      c.close.invokeExact(db);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    } finally {
      arena.close();
    }
  }
}
