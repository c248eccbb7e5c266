package io.bbfindex.app;

import io.bbfindex.app.cli.Cli;

/** Entry point of the {@code bbf-index} command line; the work is in {@link Cli}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    int code = Cli.run(args, System.out, System.err, Cli.defaultChainAccess(), Cli.home());
    if (code != Cli.SERVING) {
      System.exit(code);
    }
  }
}
