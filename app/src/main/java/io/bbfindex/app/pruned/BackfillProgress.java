package io.bbfindex.app.pruned;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Where {@code --backfill-pruned} is: its state and counts, read by status, metrics and readyz. */
public final class BackfillProgress {

  static final String IDLE = "off";
  static final String RUNNING = "running";
  static final String DONE = "done";

  /** One consistent reading. */
  public record Snapshot(
      String state, int done, int total, double blocksPerSecond, @Nullable String lastError) {

    boolean running() {
      return state.equals(RUNNING);
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("state", state);
      m.put("blocksDone", done);
      m.put("blocksTotal", total);
      m.put("blocksPerSecond", blocksPerSecond);
      m.put("lastError", lastError);
      return m;
    }
  }

  private volatile Snapshot snapshot = new Snapshot(IDLE, 0, 0, 0, null);

  public Snapshot snapshot() {
    return snapshot;
  }

  void set(String state, int done, int total, double rate, @Nullable String lastError) {
    snapshot = new Snapshot(state, done, total, rate, lastError);
  }
}
