package io.bbfindex.ingest.filterbuild;

/** Receives progress of a long build step. Called from the thread doing the work; keep it cheap. */
@FunctionalInterface
public interface ProgressListener {

  /** Ignores everything. */
  ProgressListener NONE = (phase, done, total) -> {};

  /**
   * @param phase what is being done, e.g. {@code "scan txindex (pass 1/1)"}
   * @param done units done so far in this phase
   * @param total expected units (an estimate; may be exceeded), or -1 when unknown
   */
  void progress(String phase, long done, long total);

  /** Called once when a phase ends (default: nothing). */
  default void phaseDone(String phase, long done) {}
}
