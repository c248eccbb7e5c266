package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.store.Manifest;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What stands in a store directory before a build, as far as deciding what to rebuild goes: the
 * manifest found, or why there is none, and which of the filter files it lists failed verification
 * ({@link StoreInspection} finds this out; {@link BuildPlan#decide} decides from it).
 *
 * @param manifest the manifest read, whether or not the build can use it; null when it is missing
 *     or unreadable
 * @param noManifest why there is no manifest ({@code "new store"}, {@code "manifest unusable
 *     (...)"}); null when there is one
 * @param badFileFilters per block file number, why the per-file filter the manifest lists for it is
 *     unusable; the others verified (every listed filter is verified when the manifest suits the
 *     build, none when it does not)
 * @param badSummary why the summary filter is unusable, or null
 * @param badBlockHashes why the block-hash filter is unusable, or null
 */
record StoreState(
    @Nullable Manifest manifest,
    @Nullable String noManifest,
    Map<Integer, String> badFileFilters,
    @Nullable String badSummary,
    @Nullable String badBlockHashes) {

  StoreState {
    if ((manifest == null) == (noManifest == null)) {
      throw new IllegalArgumentException("either a manifest or the reason there is none");
    }
    badFileFilters = Map.copyOf(badFileFilters);
  }

  /** A directory without a usable manifest. */
  static StoreState without(String noManifest) {
    return new StoreState(null, noManifest, Map.of(), null, null);
  }
}
