package io.bbfindex.app;

import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.cli.Cli;

/** Entry point of the {@code bbf-index} command line: wires {@link Cli} to Bitcoin Core data. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    // One line per log record ("INFO: message"), unless the user configured logging otherwise.
    if (System.getProperty("java.util.logging.SimpleFormatter.format") == null
        && System.getProperty("java.util.logging.config.file") == null) {
      System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s: %5$s%6$s%n");
    }
    int code = Cli.run(args, System.out, System.err, new CoreChainAccess(), Cli.home());
    if (code != Cli.SERVING) {
      System.exit(code);
    }
  }
}
