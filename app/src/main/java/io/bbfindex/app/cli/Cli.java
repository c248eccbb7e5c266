package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ChainAccess;
import io.bbfindex.app.bitcoincore.CoreChainAccess;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code bbf-index} command line: {@code serve} and {@code ingest}, declared with picocli, each
 * with a generated {@code --help}. Exit codes: 0 success, 1 the work failed (one line on stderr
 * saying why), 2 a bad command line (one line on stderr).
 */
public final class Cli {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  /** Returned by {@code serve} once the server has stopped because the JVM is shutting down. */
  public static final int SERVING = -1;

  private Cli() {}

  /** The project root the launcher passes as {@code -Dbbf.home}, if any. */
  public static Optional<Path> home() {
    return Optional.ofNullable(System.getProperty("bbf.home"))
        .filter(h -> !h.isBlank())
        .map(h -> Path.of(h).toAbsolutePath().normalize());
  }

  /**
   * Runs one command. {@code serve} blocks until the server stops (Ctrl-C / SIGTERM close it
   * through a shutdown hook).
   */
  public static int run(
      String[] argv, PrintStream out, PrintStream err, ChainAccess access, Optional<Path> home) {
    CommandLine commandLine = commandLine(new CliContext(out, err, access, home));
    PrintWriter outWriter = new PrintWriter(new OutputStreamWriter(out, out.charset()), true);
    PrintWriter errWriter = new PrintWriter(new OutputStreamWriter(err, err.charset()), true);
    commandLine.setOut(outWriter).setErr(errWriter);
    commandLine.setParameterExceptionHandler((e, args) -> usageError(e, errWriter));
    commandLine.setExecutionExceptionHandler((e, cl, parsed) -> failure(e, cl, errWriter));
    commandLine.setExecutionStrategy(
        parsed -> {
          Repeats.refuse(parsed);
          return new CommandLine.RunLast().execute(parsed);
        });
    int code = commandLine.execute(argv);
    outWriter.flush();
    errWriter.flush();
    return code;
  }

  /** As {@link #run(String[], PrintStream, PrintStream, ChainAccess, Optional)} with a root. */
  public static int run(
      String[] argv, PrintStream out, PrintStream err, ChainAccess access, Path home) {
    return run(argv, out, err, access, Optional.of(home));
  }

  /** The declared command model: every command and option, as {@code run} parses them. */
  public static CommandSpec model() {
    return commandLine(
            new CliContext(System.out, System.err, new CoreChainAccess(), Optional.empty()))
        .getCommandSpec();
  }

  /** The command tree over {@code context}; what a user types is parsed strictly. */
  static CommandLine commandLine(CliContext context) {
    CommandLine root = new CommandLine(new BbfIndexCommand());
    root.addSubcommand(new ServeCommand(context));
    root.addSubcommand(new IngestCommand(context));
    root.addSubcommand(
        launcherOnly(
            "bench",
            "(launcher only) benchmarks ('./bbf-index bench' lists the suites)",
            "the benchmarks are not part of the product: run ./bbf-index bench (it lists the"
                + " suites)"));
    root.addSubcommand(
        launcherOnly(
            "test",
            "(launcher only) build and run every test",
            "the tests run from the source tree: ./bbf-index test"));
    root.addSubcommand(new CommandLine.HelpCommand());
    root.getCommandSpec().subcommands().values().stream()
        .filter(c -> c.getCommand() instanceof CommandLine.HelpCommand)
        .forEach(c -> c.getCommandSpec().usageMessage().hidden(true));
    root.setExpandAtFiles(false); // "@file" is a path, not a file of arguments
    return Converters.register(root);
  }

  private static CommandLine launcherOnly(String name, String summary, String where) {
    CommandLine c = new CommandLine(new LauncherOnlyCommand(where));
    c.getCommandSpec().name(name).usageMessage().description(summary);
    return c;
  }

  /** A bad command line: one line naming the command, exit code 2. */
  private static int usageError(ParameterException e, PrintWriter err) {
    CommandLine at = e.getCommandLine();
    boolean root = at.getParent() == null;
    if (root && e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
      err.println(
          "bbf-index: unknown command '"
              + u.getUnmatched().getFirst()
              + "' (commands: serve, ingest; see bbf-index --help)");
    } else {
      String name = at.getCommandSpec().qualifiedName();
      err.println(name + ": " + oneLine(e.getMessage()) + " (see " + name + " --help)");
    }
    return USAGE;
  }

  /** What a command threw: a usage error (2), or the work failed (1), in one line. */
  private static int failure(Exception e, CommandLine at, PrintWriter err) throws Exception {
    String name = at.getCommandSpec().qualifiedName();
    if (e instanceof UsageException) {
      err.println(name + ": " + oneLine(e.getMessage()));
      return USAGE;
    }
    if (e instanceof IOException || e instanceof UncheckedIOException) {
      err.println(name + ": " + oneLine(e.getMessage()));
      return FAILED;
    }
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return FAILED;
    }
    throw e;
  }

  private static String oneLine(@Nullable String message) {
    if (message == null) {
      return "invalid command line";
    }
    return message.replaceAll("\\s*\\R\\s*", " ").strip();
  }

  /** Parses {@code args} as {@code command}'s (for starting a server without waiting on it). */
  static ParseResult parse(CommandLine commandLine, String command, List<String> args)
      throws UsageException {
    String[] argv = new String[args.size() + 1];
    argv[0] = command;
    for (int i = 0; i < args.size(); i++) {
      argv[i + 1] = args.get(i);
    }
    try {
      ParseResult parsed = commandLine.parseArgs(argv);
      Repeats.refuse(parsed);
      return parsed;
    } catch (ParameterException e) {
      throw new UsageException(oneLine(e.getMessage()), e);
    }
  }
}
