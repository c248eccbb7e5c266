package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.ingest.store.FilterInfo;
import io.bbfindex.ingest.store.FilterStore;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@code GET /v1/filters} view of a filter store, shared by every backend over a {@link
 * FilterStore}. Describing a filter costs a popcount (fill ratio) and an eq. 3 sum (modelled FPR):
 * about a second for mainnet's 5,600 per-file filters (959 ms in {@code ./bbf-index bench scale}),
 * so {@link #all()} is computed on first use and kept, and start-up only describes the two filters
 * that answer lookups ({@link #lookupFilters()}), which the gauges cover.
 */
public final class FilterDescriptions {
  private final FilterStore store;
  private volatile @Nullable List<FilterSummary> all;

  public FilterDescriptions(FilterStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /** Every filter of the store: summary, block hashes, then one per block file. */
  public List<FilterSummary> all() {
    List<FilterSummary> s = all;
    if (s == null) {
      synchronized (this) {
        s = all;
        if (s == null) {
          s = store.filters().stream().map(FilterDescriptions::summary).toList();
          all = s;
        }
      }
    }
    return s;
  }

  /** The summary and block-hash filters only. */
  public List<FilterSummary> lookupFilters() {
    return store.lookupFilters().stream().map(FilterDescriptions::summary).toList();
  }

  private static FilterSummary summary(FilterInfo f) {
    return new FilterSummary(
        f.name(),
        f.kind().label(),
        f.blockFile(),
        f.keys(),
        f.bits(),
        f.k(),
        f.wordBits(),
        f.fillRatio(),
        f.modelledFpr());
  }
}
