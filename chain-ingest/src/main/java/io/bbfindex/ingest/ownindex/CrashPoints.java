package io.bbfindex.ingest.ownindex;

import java.util.Locale;

/**
 * Named moments of the own index's builds and merges where the kill tests stop the process: with
 * the system property {@code bbf.ownindex.pauseAt} set to a moment's name, the thread that reaches
 * it prints {@code bbf-index: own index paused at NAME} to standard error and waits forever, so
 * that a test can {@code kill -9} the process exactly there. Without the property (always, outside
 * those tests) {@link #reach} returns at once.
 */
final class CrashPoints {

  /** Before a full build of the base file (its spill is being written). */
  static final String BASE_BUILD = "base-build";

  /** Spilled, while the shards of a file are built and written (its temporary file). */
  static final String SHARDS = "shards";

  /** A part file written under its final name, the manifest not yet naming it. */
  static final String PART_WRITTEN = "part-written";

  /** A merged file written, the manifest still naming the files it replaces. */
  static final String MERGE_WRITTEN = "merge-written";

  /** The manifest names the merged file; the replaced files are not deleted yet. */
  static final String MERGE_COMMITTED = "merge-committed";

  private static final String PROPERTY = "bbf.ownindex.pauseAt";

  private CrashPoints() {}

  static void reach(String moment) {
    String at = System.getProperty(PROPERTY);
    if (at == null || !at.toLowerCase(Locale.ROOT).equals(moment)) {
      return;
    }
    System.err.println("bbf-index: own index paused at " + moment);
    System.err.flush();
    while (true) {
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
