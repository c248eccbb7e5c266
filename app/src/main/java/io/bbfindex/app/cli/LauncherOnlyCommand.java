package io.bbfindex.app.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * A command of the launcher script, not of the product jar ({@code bench}, {@code test}): listed in
 * the help so that a user finds it, and a usage error that says where it lives when given here.
 */
@Command(synopsisHeading = "usage: ")
final class LauncherOnlyCommand implements Callable<Integer> {
  private final String where;

  @Unmatched List<String> arguments = new ArrayList<>();

  LauncherOnlyCommand(String where) {
    this.where = where;
  }

  @Override
  public Integer call() throws UsageException {
    throw new UsageException(where);
  }
}
