package io.bbfindex.filters.bench;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/** Counts the true verdicts of a batch 32 at a time: loaded only when the Vector API is present. */
final class TrueCount {
  private static final VectorSpecies<Byte> S = ByteVector.SPECIES_256;

  private TrueCount() {}

  /** 32 verdicts a step: each true is byte 1, and a sum of 32 of them fits a byte. */
  static int vector(boolean[] out, int count) {
    int n = 0;
    int i = 0;
    for (int bound = S.loopBound(count); i < bound; i += S.length()) {
      n += ByteVector.fromBooleanArray(S, out, i).reduceLanes(VectorOperators.ADD);
    }
    return n + Hits.trues(out, i, count);
  }
}
