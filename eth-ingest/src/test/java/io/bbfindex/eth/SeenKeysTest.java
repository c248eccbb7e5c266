package io.bbfindex.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The tip's one-bit-per-key set: no key it took is missed; few it never took pass; rebuilds. */
class SeenKeysTest {
  private final SplittableRandom random = new SplittableRandom(11);

  private List<TxHash> hashes(int n) {
    List<TxHash> out = new ArrayList<>(n);
    byte[] b = new byte[32];
    for (int i = 0; i < n; i++) {
      random.nextBytes(b);
      out.add(TxHash.of(b, 0));
    }
    return out;
  }

  private static boolean has(SeenKeys s, TxHash h) {
    byte[] key = new byte[64];
    h.copyTo(key, 32); // at an offset, as lookups pass keys
    return s.mightContain(key, 32);
  }

  @Test
  void everyKeyTakenIsFoundAndFewOthersPass() {
    List<TxHash> all = new ArrayList<>();
    SeenKeys s = SeenKeys.of(all);
    for (int block = 0; block < 40; block++) {
      List<TxHash> more = hashes(100);
      all.addAll(more);
      s = s.plus(more, all);
    }
    assertEquals(4_000, s.count());
    for (TxHash h : all) {
      assertTrue(has(s, h), "a key taken is always found");
    }
    int passed = 0;
    for (TxHash h : hashes(100_000)) {
      passed += has(s, h) ? 1 : 0;
    }
    // 4,000 keys in 2^17 bits: 1 - e^(-4000/131072), about 3%.
    assertTrue(passed < 4_500, passed + " of 100,000 keys never taken passed");
  }

  @Test
  void anOldSetDoesNotChangeWhenANewOneIsMadeFromIt() {
    List<TxHash> first = hashes(10);
    SeenKeys a = SeenKeys.of(first);
    List<TxHash> more = hashes(2_000);
    List<TxHash> all = new ArrayList<>(first);
    all.addAll(more);
    SeenKeys b = a.plus(more, all);
    int inA = 0;
    for (TxHash h : more) {
      assertTrue(has(b, h));
      inA += has(a, h) ? 1 : 0;
    }
    assertTrue(inA < 100, inA + " of 2,000 keys added to the copy show in the original");
  }

  @Test
  void pastItsCapacityItIsRebuiltFromTheTipsKeysAlone() {
    List<TxHash> dropped = hashes(4_000);
    SeenKeys s = SeenKeys.of(List.of()).plus(dropped, dropped);
    assertEquals(4_096, s.capacity());
    List<TxHash> kept = hashes(200);
    SeenKeys rebuilt = s.plus(kept, kept); // 4,200 > 4,096: only the tip's 200 keys now
    assertEquals(200, rebuilt.count());
    for (TxHash h : kept) {
      assertTrue(has(rebuilt, h));
    }
    int stillThere = 0;
    for (TxHash h : dropped) {
      stillThere += has(rebuilt, h) ? 1 : 0;
    }
    assertFalse(stillThere > 100, stillThere + " of 4,000 dropped keys still pass");
  }
}
