package io.bbfindex.app.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Set;

/**
 * {@code bbf-index bench}: how to measure the service. Load figures come from wrk against a running
 * server, never from timed unit tests; this command prints the recipe the README's figures use.
 */
final class BenchCommand {
  static final String HELP = """
      usage: bbf-index bench [--url URL]

      Prints the wrk commands that measure the service: /livez as the baseline, then negative and
      positive single lookups. Start a server first (./bbf-index serve), then run them.

        --url URL       base URL of a running server (default http://127.0.0.1:8080)
      """;

  private BenchCommand() {}

  static void run(List<String> args, PrintStream out) throws UsageException {
    Options o = Options.parse("bench", args, Set.of("url"));
    if (o.help()) {
      out.print(HELP);
      return;
    }
    String url = o.string("url", "http://127.0.0.1:8080");
    if (!url.startsWith("http://")) {
      throw new UsageException("--url must start with http://: " + url);
    }
    out.printf("""
        wrk -t2 -c64 -d20s --latency %1$s/livez
        wrk -t2 -c64 -d20s --latency %1$s/v1/tx/%2$s
        wrk -t2 -c64 -d20s --latency %1$s/v1/tx/%3$s
        """, url, io.bbfindex.app.demo.EmbeddedDemo.LATER_TXID, io.bbfindex.app.demo.EmbeddedDemo.PAYMENT_170);
  }
}
