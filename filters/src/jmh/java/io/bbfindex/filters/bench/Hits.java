package io.bbfindex.filters.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Per-iteration counts JMH reports beside the time ({@code hits}, {@code probes}): positive
 * lookups must hit every time, negative ones only at the false-positive rate, so the report shows
 * that each benchmark measured what it claims.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class Hits {
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

  /** Counts a batch's verdicts; returns the hits (the benchmark's result). */
  int batch(boolean[] out, int count) {
    int n = 0;
    for (int i = 0; i < count; i++) {
      n += out[i] ? 1 : 0;
    }
    hits += n;
    probes += count;
    return n;
  }
}
