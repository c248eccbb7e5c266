package io.bbfindex.app.lookup;

/** How one lookup ended; the {@code outcome} tag of {@code bbf_lookups_total}. */
public enum LookupOutcome {
  /** The filter said "no": answered from memory, no index read. */
  ABSENT_BY_FILTER("absent_by_filter"),
  /** The filter said "maybe" and Core's index holds it on the active chain. */
  CONFIRMED("confirmed"),
  /** The filter said "maybe" and Core's index holds it, off the active chain. */
  STALE("stale"),
  /** The filter said "maybe" and the followed node's mempool holds it ({@code serve --follow}). */
  MEMPOOL("mempool"),
  /** The filter said "maybe" and Core's index refuted it. */
  FILTER_FALSE_POSITIVE("filter_false_positive");

  private final String tag;

  LookupOutcome(String tag) {
    this.tag = tag;
  }

  /** The metric tag value (stable: dashboards select on it). */
  public String tag() {
    return tag;
  }
}
