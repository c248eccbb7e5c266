/**
 * Approximate-membership filters over 32-byte keys: the blocked Bloom filter (BBF) with its scalar
 * and Vector API kernels, its checksummed file format, and the seeds' peers (standard, one-memory-
 * access and two-bit Bloom filters, the cuckoo filter and the cuckoo hash table).
 *
 * <p>JDK only, by design: nothing here knows of Bitcoin, LevelDB or servers (the layering test in
 * {@code app} checks it for the other modules' side). The kernels and bit derivations are
 * package-private; only the API packages are exported.
 */
module io.bbfindex.filters {
  // Optional: without the incubator module the bit-identical scalar kernel runs (KernelSelection).
  requires static jdk.incubator.vector;
  // Optional: only to notice a JVM without C2, where the Vector API would not be intrinsified.
  requires static java.management;
  requires static jdk.management;

  exports io.bbfindex.filters;
  exports io.bbfindex.filters.catalog;
  exports io.bbfindex.filters.io;
  exports io.bbfindex.filters.peers;
}
