package io.bbfindex.filters.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Per-iteration counts JMH reports beside the time ({@code hits}, {@code probes}): positive lookups
 * must hit every time, negative ones only at the false-positive rate, so the report shows that each
 * benchmark measured what it claims.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class Hits {
  /**
   * Whether the batch verdicts are counted with the Vector API. The benchmarks always run with it;
   * the unit tests also run without it, where {@link TrueCount} must not be loaded.
   */
  private static final boolean VECTOR_COUNT =
      ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

  public long hits;
  public long probes;

  @Setup(Level.Iteration)
  public void reset() {
    hits = 0;
    probes = 0;
  }

  /** Counts one lookup, branch-free. */
  void one(boolean hit) {
    hits += hit ? 1 : 0;
    probes++;
  }

  /** Counts {@code n} hits among {@code count} probes; returns {@code n}. */
  int add(int n, int count) {
    hits += n;
    probes += count;
    return n;
  }

  /**
   * Counts a batch's verdicts; returns the hits (the benchmark's result). The count is the
   * benchmark's own bookkeeping, not the lookup: counted one boolean at a time it added about 0.7
   * ns a key to the DRAM batch figure (5.9 against 5.2 ns without it), 32 at a time about 0.2
   * (negativeBatchBooleans, BBF_SIMD, n = 1e7, {@code ./bbf-index bench filters --quick}; one at a
   * time is this class before 618f05c).
   */
  int batch(boolean[] out, int count) {
    int n = VECTOR_COUNT ? TrueCount.vector(out, count) : trues(out, 0, count);
    hits += n;
    probes += count;
    return n;
  }

  /** How many of {@code out[from .. count)} are true, one at a time. */
  static int trues(boolean[] out, int from, int count) {
    int n = 0;
    for (int i = from; i < count; i++) {
      n += out[i] ? 1 : 0;
    }
    return n;
  }
}
