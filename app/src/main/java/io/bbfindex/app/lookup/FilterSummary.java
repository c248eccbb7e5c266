package io.bbfindex.app.lookup;

/**
 * One loaded filter as {@code GET /v1/filters} and the per-filter gauges describe it.
 *
 * @param name stable identifier, e.g. {@code tx-summary}, {@code tx-blk00000}, {@code blocks}
 * @param kind what the keys are, e.g. {@code tx-summary}, {@code tx-file}, {@code block}
 * @param blockFile the {@code blk?????.dat} number, or -1 for filters over all files
 * @param keys keys inserted (n)
 * @param bits table size in bits (m)
 * @param k bits set per key
 * @param wordBits bits per word of the blocked layout (lw)
 */
public record FilterSummary(
    String name,
    String kind,
    int blockFile,
    long keys,
    long bits,
    int k,
    int wordBits,
    double fillRatio,
    double modelledFpr) {}
