package io.bbfindex.ingest.store;

import io.bbfindex.filters.io.FilterKind;

/**
 * One filter of a store, as reported by {@code GET /v1/filters}.
 *
 * @param name file name inside the store directory
 * @param kind {@link FilterKind#TX_BLOCK_FILE}, {@link FilterKind#TX_SUMMARY} or {@link
 *     FilterKind#BLOCK_HASHES} (the API shows its {@link FilterKind#label()})
 * @param blockFile Core's blk file number, or -1 for filters over several files
 * @param keys exact number of keys (from the manifest)
 * @param bits size of the bit array
 * @param k words per group
 * @param wordBits bits per word (lw)
 * @param fillRatio fraction of bits set
 * @param modelledFpr the paper's eq. 3 at {@code keys}
 */
public record FilterInfo(
    String name,
    FilterKind kind,
    int blockFile,
    long keys,
    long bits,
    int k,
    int wordBits,
    double fillRatio,
    double modelledFpr) {}
