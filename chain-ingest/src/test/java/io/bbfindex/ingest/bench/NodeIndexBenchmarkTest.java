package io.bbfindex.ingest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The JMH benchmark of src/jmh/java (a test source root of the default build) measures what it
 * claims: its setup opens the 150,401-row fixture, its scan visits every row with the fields the
 * ground truth gives, and its lookups run. So {@code mvn verify} keeps the benchmark working.
 */
class NodeIndexBenchmarkTest {

  @Test
  void theScanVisitsEveryGroundTruthRowAndTheLookupsRun() throws IOException {
    long expected = 0;
    for (TxRow r : Fixtures.txRows(Archive.REGTEST_MULTIFILE)) {
      expected += r.txidInternal()[0] + r.file() + r.pos() + r.txOffset();
    }
    NodeIndexBenchmark b = new NodeIndexBenchmark();
    b.open();
    try {
      assertEquals(
          expected,
          b.forEachTx(),
          "the scan's checksum over (txid[0], file, pos, offset) of every row");
      Blackhole bh =
          new Blackhole(
              "Today's password is swordfish. I understand instantiating Blackholes directly is"
                  + " dangerous.");
      for (int i = 0; i < 100; i++) {
        b.findTxPresent(bh);
        b.findTxAbsent(bh);
      }
    } finally {
      b.close();
    }
  }
}
