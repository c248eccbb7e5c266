package io.bbfindex.benchmarks;

import io.bbfindex.benchmarks.eth.EthBench;
import io.bbfindex.benchmarks.follow.FollowBench;
import io.bbfindex.benchmarks.harness.ProjectHome;
import io.bbfindex.benchmarks.http.HttpBench;
import io.bbfindex.benchmarks.http.VsCoreBench;
import io.bbfindex.benchmarks.ingest.IngestThroughputBench;
import io.bbfindex.benchmarks.push.PushBench;
import io.bbfindex.benchmarks.scale.ScaleBench;
import io.bbfindex.benchmarks.soak.SoakBench;
import io.bbfindex.benchmarks.store.StoreBench;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The one entry point of the cross-module benchmarks ({@code benchmarks/target/bbf-bench.jar}, run
 * by {@code ./bbf-index bench store|scale|http|ingest|follow|eth|soak|vs-core|push}). Options are
 * parsed strictly by picocli: an unknown option or a malformed value is an error (exit 2, with the
 * usage), never a silent full run. Each suite prints its tables, then {@code summary: NAME VALUE}
 * lines, and writes both to {@code bench-results/} under the project root ({@code -Dbbf.home}, set
 * by the launcher). The JMH suites of one module (filters, paper) are not here: they live in that
 * module's {@code src/jmh}.
 */
@Command(
    name = "bbf-index bench",
    mixinStandardHelpOptions = true,
    version = "bbf-index benchmarks",
    description =
        "Cross-module benchmarks; each ends with 'summary: NAME VALUE' lines, also written to "
            + "bench-results/.",
    subcommands = {
      StoreBench.class,
      ScaleBench.class,
      HttpBench.class,
      IngestThroughputBench.class,
      FollowBench.Suite.class,
      EthBench.Suite.class,
      SoakBench.class,
      VsCoreBench.class,
      PushBench.class
    })
public final class BenchMain implements Runnable {

  @Spec CommandSpec spec;

  BenchMain() {}

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(),
        "name a suite: store, scale, http, ingest, follow, eth, soak, vs-core or push");
  }

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /**
   * Parses {@code args} and runs the suite they name; the exit code (0, 1 failed, 2 bad arguments).
   */
  public static int execute(String... args) {
    Path home = ProjectHome.home();
    if (home != null && System.getProperty("bbf.fixtures") == null) {
      // the fixture readers shared with the tests find the checked-in fixtures through this
      // property
      System.setProperty("bbf.fixtures", home.resolve("fixtures").toString());
    }
    return commandLine().execute(args);
  }

  /** The command tree: {@code bench} and its suites. */
  static CommandLine commandLine() {
    return new CommandLine(new BenchMain());
  }
}
