package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.store.FilterStoreException;
import io.bbfindex.ingest.store.ManifestFile;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * The secret salt a store's filters are keyed with. Unsalted filters are a public function of the
 * chain: anyone can rebuild them and grind ids that are false positives, so that every such request
 * costs a LevelDB read instead of a cache line. A random salt per store, known only to the store's
 * manifest, makes a false positive ground against one store a plain negative for another.
 *
 * <p>A store that is already salted keeps its salt (a new one would rebuild every filter on every
 * run: {@link BuildPlan#incompatibility}); a missing, unreadable or unsalted store gets a fresh
 * one.
 */
public final class StoreSalt {
  private static final SecureRandom RANDOM = new SecureRandom();

  private StoreSalt() {}

  /**
   * The salt to build the store in {@code storeDir} with: 0 when {@code unsalted} is asked for,
   * else the store's own salt, or a fresh non-zero one from {@link SecureRandom}.
   */
  public static long forStore(Path storeDir, boolean unsalted) {
    if (unsalted) {
      return 0;
    }
    try {
      long kept = ManifestFile.readSalt(storeDir);
      if (kept != 0) {
        return kept;
      }
    } catch (FilterStoreException noUsableManifest) {
      // nothing to keep: the build rebuilds the whole store anyway
    }
    return fresh();
  }

  /** A random non-zero salt (0 is the unsalted derivation's marker). */
  static long fresh() {
    long s;
    do {
      s = RANDOM.nextLong();
    } while (s == 0);
    return s;
  }
}
