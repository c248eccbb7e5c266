package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.store.Manifest;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a build did.
 *
 * @param rebuilt names of the filter files written, with the reason for each in {@code reasons}
 * @param kept names of the filter files verified and left as they were
 * @param removed filter files deleted (their block file is gone from the block index, or per-file
 *     filters are off)
 * @param summaryAction {@code "kept"}, {@code "updated"} (keys of rebuilt files added to the
 *     existing summary) or {@code "rebuilt"}
 * @param scans full scans of the txindex made (0 when nothing changed)
 * @param records rows per scan
 * @param strayRecords rows naming a block file the block index does not know
 */
public record BuildReport(
    List<String> rebuilt,
    Map<String, String> reasons,
    List<String> kept,
    List<String> removed,
    String summaryAction,
    int scans,
    long records,
    long strayRecords,
    Duration elapsed,
    Manifest manifest) {

  public BuildReport {
    rebuilt = List.copyOf(rebuilt);
    reasons = Map.copyOf(reasons);
    kept = List.copyOf(kept);
    removed = List.copyOf(removed);
  }

  /** Whether nothing was written. */
  public boolean nothingRebuilt() {
    return rebuilt.isEmpty() && removed.isEmpty();
  }

  /** One line per rebuilt file with its reason, then totals; for logs. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            java.util.Locale.ROOT,
            "filters: %d rebuilt, %d kept, %d removed; summary %s; %d txindex "
                + "scan(s) of %,d rows; %d ms",
            rebuilt.size(),
            kept.size(),
            removed.size(),
            summaryAction,
            scans,
            records,
            elapsed.toMillis()));
    for (String name : rebuilt) {
      sb.append("\n  rebuilt ").append(name).append(": ").append(reasons.get(name));
    }
    for (String name : removed) {
      sb.append("\n  removed ").append(name);
    }
    if (strayRecords > 0) {
      sb.append("\n  warning: ")
          .append(strayRecords)
          .append(" txindex rows name block files the block index lacks");
    }
    return sb.toString();
  }
}
