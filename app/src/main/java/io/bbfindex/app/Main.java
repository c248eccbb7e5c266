package io.bbfindex.app;

import io.bbfindex.app.cli.Cli;
import io.bbfindex.app.core.CoreChainAccess;

/** Entry point of the {@code bbf-index} command line: wires {@link Cli} to Bitcoin Core data. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    int code = Cli.run(args, System.out, System.err, new CoreChainAccess(), Cli.home());
    if (code != Cli.SERVING) {
      System.exit(code);
    }
  }
}
