package io.bbfindex.ingest.bench;

import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.testing.FileTrees;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.Fixtures.TxRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The readers on the largest fixture (regtest, 150,401 txindex rows in one .ldb table, 2 blk
 * files): a full {@code forEachTx} scan, and {@code findTx} for present and absent txids.
 *
 * <p>Run from the repository root (JDK 25):
 *
 * <pre>
 * mvn -B -q -o -pl chain-ingest -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java --enable-native-access=ALL-UNNAMED -Dbbf.fixtures=$PWD/fixtures \
 *     -cp chain-ingest/target/test-classes:chain-ingest/target/classes:$(cat chain-ingest/target/cp.txt) \
 *     org.openjdk.jmh.Main NodeIndexBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class NodeIndexBenchmark {

  /** Rows of the fixture's txindex; setup checks it, so the per-record rate below is exact. */
  static final int ROWS = 150_401;

  private static final int QUERIES = 1 << 14;

  private Path tmp;
  private NodeIndex index;
  private byte[][] present;
  private byte[][] absent;
  private int next;

  @Setup
  public void open() throws IOException {
    tmp = Files.createTempDirectory("bbf-bench-");
    index =
        NodeIndex.open(
            Fixtures.extract(Archive.REGTEST_MULTIFILE, tmp.resolve("data")), tmp.resolve("work"));
    List<TxRow> rows = Fixtures.txRows(Archive.REGTEST_MULTIFILE);
    if (rows.size() != ROWS) {
      throw new IllegalStateException(
          "fixture has " + rows.size() + " rows, benchmark assumes " + ROWS);
    }
    Random rnd = new Random(1);
    present = new byte[QUERIES][];
    absent = new byte[QUERIES][];
    for (int i = 0; i < QUERIES; i++) {
      present[i] = rows.get(rnd.nextInt(rows.size())).txidInternal();
      absent[i] = new byte[32];
      rnd.nextBytes(absent[i]);
    }
  }

  @TearDown
  public void close() throws IOException {
    index.close();
    FileTrees.deleteTree(tmp);
  }

  /** Records per second of a full txindex scan: ops/s here are records/s. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(ROWS)
  public long forEachTx() {
    long[] acc = {0};
    index.forEachTx((txid, file, pos, off) -> acc[0] += txid[0] + file + pos + off);
    return acc[0];
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public void findTxPresent(Blackhole bh) {
    bh.consume(index.findTx(present[next++ & (QUERIES - 1)]));
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public void findTxAbsent(Blackhole bh) {
    bh.consume(index.findTx(absent[next++ & (QUERIES - 1)]));
  }
}
