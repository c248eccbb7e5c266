/**
 * Approximate-membership filters over 32-byte keys: the blocked Bloom filter (BBF) with its scalar
 * and Vector API kernels, its checksummed file format, the cuckoo filter and cuckoo hash table the
 * product's tip layers use ({@code cuckoo}), and the BBF's peers in the paper's comparison
 * (standard, one-memory-access and two-bit Bloom filters: {@code peers}, reached through the {@code
 * catalog}).
 *
 * <p>JDK only, by design: nothing here knows of Bitcoin, LevelDB or servers (the layering test in
 * {@code app} checks it for the other modules' side). The kernels and bit derivations are
 * package-private; only the API packages are exported, among them {@code hash} (the Murmur3
 * finalizer and key words the cuckoo structures and chain-ingest's own txid index share). {@code
 * peers} ("what we compare against") is not: outside this module the peers are reached through
 * {@link io.bbfindex.filters.catalog.FilterType} only.
 */
module io.bbfindex.filters {
  // Optional: without the incubator module the bit-identical scalar kernel runs (KernelSelection).
  requires static jdk.incubator.vector;
  // Optional: only to notice a JVM without C2, where the Vector API would not be intrinsified.
  requires static java.management;
  requires static jdk.management;
  // Compile time only: the @NullMarked / @Nullable annotations NullAway checks.
  requires static org.jspecify;

  exports io.bbfindex.filters;
  exports io.bbfindex.filters.catalog;
  exports io.bbfindex.filters.cuckoo;
  exports io.bbfindex.filters.hash;
  exports io.bbfindex.filters.io;
}
