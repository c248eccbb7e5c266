package io.bbfindex.app.cli;

import io.bbfindex.app.bench.HttpBench;
import io.bbfindex.app.bench.ScaleBench;
import io.bbfindex.app.bench.StoreBench;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code bbf-index bench SUITE}: routes to the benchmark mains of {@code io.bbfindex.app.bench}
 * (the launcher calls them directly; this keeps {@code java -jar bbf-index.jar bench ...} working
 * too). Performance figures come from these and from JMH, never from timed unit tests.
 */
final class BenchCommand {
  static final String HELP = """
      usage: bbf-index bench http|store|scale|follow [--quick] [suite options]

        http     wrk against 'serve': /livez vs negative, positive and batch lookups
        store    filters vs plain LevelDB gets on a Core-format txindex
        scale    mainnet scale: thousands of block files
        follow   following a node: block connect, mempool resync, latency (BITCOIND for a node)
        (filters and paper, the JMH suites, run through the launcher: ./bbf-index bench filters)

      'bbf-index bench SUITE --help' describes each suite.
      """;

  private BenchCommand() {}

  static void run(List<String> args, PrintStream out) throws UsageException, IOException, InterruptedException {
    if (args.isEmpty() || List.of("--help", "-h").contains(args.getFirst())) {
      out.print(HELP);
      return;
    }
    String suite = args.getFirst();
    String[] rest = args.subList(1, args.size()).toArray(String[]::new);
    try {
      switch (suite) {
        case "http" -> HttpBench.main(rest);
        case "store" -> StoreBench.main(rest);
        case "scale" -> ScaleBench.main(rest);
        case "follow" -> io.bbfindex.follow.bench.FollowBench.main(rest);
        case "filters", "paper" -> throw new UsageException(
            "the JMH suites run from filters/target/benchmarks.jar: use ./bbf-index bench " + suite);
        default -> throw new UsageException("unknown suite '" + suite + "' (suites: http, store, scale, follow, filters, paper)");
      }
    } catch (UsageException | IOException | InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("bench " + suite + " failed: " + e.getMessage(), e);
    }
  }
}
