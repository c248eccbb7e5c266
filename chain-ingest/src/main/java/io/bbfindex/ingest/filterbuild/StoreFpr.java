package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.store.FilterStoreException;
import io.bbfindex.ingest.store.ManifestFile;
import java.nio.file.Path;

/**
 * The target false-positive rate to build a store with when none is asked for: the one the store
 * was built with. A store built by {@code ingest --fpr 0.001} and then served without {@code --fpr}
 * must be served as it is, not rebuilt at the default ({@link BuildPlan#incompatibility} rebuilds
 * every filter when the target changes).
 */
public final class StoreFpr {
  private StoreFpr() {}

  /** The target FPR of the store in {@code storeDir}, or {@code fallback} without a usable one. */
  public static double forStore(Path storeDir, double fallback) {
    try {
      return ManifestFile.readTargetFpr(storeDir);
    } catch (FilterStoreException noUsableManifest) {
      return fallback; // the build makes a new store: the default applies
    }
  }
}
