package io.bbfindex.benchmarks.harness;

import java.util.Map;

/** Reads of the maps a bench fills itself: one entry per target, store or step it measures. */
public final class Filled {
  private Filled() {}

  /** The entry for {@code key}, which the bench put there before reading it. */
  public static <K, V> V entry(Map<K, V> map, K key) {
    V value = map.get(key);
    if (value == null) {
      throw new IllegalStateException("nothing measured for " + key);
    }
    return value;
  }
}
