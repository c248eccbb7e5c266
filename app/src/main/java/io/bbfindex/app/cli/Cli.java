package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ChainAccess;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code bbf-index} command line: {@code serve} and {@code ingest}, each with {@code --help}.
 * Exit codes: 0 success, 1 the work failed (one line on stderr saying why), 2 a bad command line
 * (one line on stderr).
 */
public final class Cli {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  /** Returned by {@code serve} once the server has stopped because the JVM is shutting down. */
  public static final int SERVING = -1;

  static final String HELP =
      """
      usage: bbf-index <command> [options]

      Tells whether a Bitcoin txid or block hash is on chain and where Bitcoin Core stored it,
      answering most negatives from SIMD blocked Bloom filters without touching disk.

      commands:
        serve    serve lookups over HTTP (no options: the embedded mainnet 0-599 demo on 127.0.0.1:8080;
                 --eth-rpc URL: Ethereum transaction lookups, alone or beside --datadir)
        ingest   build the filters of a Bitcoin Core data directory (or, with --eth-rpc, of an Ethereum node)
        bench    (launcher only) benchmarks ('./bbf-index bench' lists the suites)
        test     (launcher only) build and run every test

      'bbf-index <command> --help' describes each command.
      """;

  private Cli() {}

  /** The project root the launcher passes as {@code -Dbbf.home}, or null. */
  public static Path home() {
    String home = System.getProperty("bbf.home");
    return home == null || home.isBlank() ? null : Path.of(home).toAbsolutePath().normalize();
  }

  /**
   * Runs one command. {@code serve} blocks until the server stops (Ctrl-C / SIGTERM close it
   * through a shutdown hook).
   */
  public static int run(
      String[] argv, PrintStream out, PrintStream err, ChainAccess access, Path home) {
    List<String> args = Arrays.asList(argv);
    if (args.isEmpty() || List.of("--help", "-h", "help").contains(args.getFirst())) {
      out.print(HELP);
      return OK;
    }
    String command = args.getFirst();
    List<String> rest = args.subList(1, args.size());
    try {
      switch (command) {
        case "serve" -> {
          ServeCommand.Started started =
              EthCommands.wanted(rest)
                  ? EthCommands.serve(rest, out, err, access, home)
                  : ServeCommand.start(rest, out, err, access, home);
          if (started == null) {
            return OK;
          }
          Runtime.getRuntime()
              .addShutdownHook(new Thread(started.service()::close, "bbf-shutdown"));
          started.service().awaitClose();
          return SERVING;
        }
        case "ingest" -> {
          if (EthCommands.wanted(rest)) {
            EthCommands.ingest(rest, out, err);
          } else {
            IngestCommand.run(rest, out, err, access);
          }
        }
        case "bench" ->
            throw new UsageException(
                "the benchmarks are not part of the product: run ./bbf-index bench"
                    + " store|scale|http|ingest|filters|paper");
        default ->
            throw new UsageException(
                "unknown command '"
                    + command
                    + "' (commands: serve, ingest; see bbf-index --help)");
      }
      return OK;
    } catch (UsageException e) {
      err.println("bbf-index" + (isCommand(command) ? " " + command : "") + ": " + e.getMessage());
      return USAGE;
    } catch (IOException | UncheckedIOException e) {
      err.println("bbf-index " + command + ": " + e.getMessage());
      return FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return FAILED;
    }
  }

  private static boolean isCommand(String c) {
    return List.of("serve", "ingest").contains(c);
  }
}
