/**
 * Approximate-membership filters over 32-byte keys (txids, block hashes), JDK only.
 *
 * <p>The blockchain Bloom filter (BBF) API is {@link io.bbfindex.filters.BbfGeometry}, {@link
 * io.bbfindex.filters.BbfSizing} and {@link io.bbfindex.filters.BlockedBloomFilter}; its design
 * note (memory layout, bit derivation, kernels) opens {@code BlockedBloomFilter}. The kernels and
 * the bit derivation are package-private; the Vector API kernel is only loaded when the {@code
 * jdk.incubator.vector} module is present.
 */
package io.bbfindex.filters;
