package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ChainAccess;
import io.bbfindex.app.http.Service;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bbf-index serve}: Bitcoin lookups ({@link BitcoinServe}), Ethereum ones with {@code
 * --eth-rpc} ({@link EthServe}), until the JVM shuts down.
 */
@Command(
    name = "serve",
    synopsisHeading = "",
    customSynopsis = {
      "usage: bbf-index serve [--datadir DIR [--filters DIR] [--txindex S] [--follow]] [options]",
      "       bbf-index serve --eth-rpc URL [--datadir DIR --filters DIR] [options]"
    },
    descriptionHeading = "%n",
    description = {
      "Serves lookups over HTTP (no --datadir: the embedded mainnet 0-599 demo on"
          + " 127.0.0.1:8080; --eth-rpc URL: Ethereum transaction lookups, alone or beside"
          + " --datadir).",
      "",
      "Bitcoin: txid and block lookups. With no --datadir, the embedded demo: the real mainnet"
          + " blocks 0-599 data directory shipped in fixtures/, extracted and ingested on first"
          + " run under data/demo/. Without --follow, stop bitcoind or point --datadir at a copy.",
      "",
      "With --eth-rpc URL: Ethereum transaction lookups (GET /v1/eth/tx/{0x hash}, POST"
          + " /v1/eth/tx/lookup, GET /v1/eth/status): final blocks from the store (built and"
          + " extended here), newer ones from a tip that follows the node's head by polling,"
          + " through reorgs; alone, or beside --datadir in one server (--filters is then"
          + " Bitcoin's store).",
      ""
    },
    footer = {
      "",
      "Prints 'listening on http://HOST:PORT (TRANSPORT)' once it accepts connections; stops on"
          + " Ctrl-C/SIGTERM."
    },
    sortOptions = false)
public final class ServeCommand implements Callable<Integer> {
  /** The started service and whether it is the demo; the caller waits on and closes it. */
  public record Started(Service service, boolean demo) {}

  private final CliContext context;

  @Spec CommandSpec spec = CommandSpec.create();

  @Option(
      names = "--filters",
      paramLabel = "DIR",
      description =
          "The filter store built by 'bbf-index ingest'; built here if missing, and brought up to"
              + " date if damaged or behind the data directory (default:"
              + " $XDG_DATA_HOME/bbf-index/<network>-<hash of the data directory>, printed). With"
              + " --eth-rpc alone: the Ethereum store (default data/eth-filters).")
  Optional<Path> filters = Optional.empty();

  @ArgGroup(validate = false, heading = "%nBitcoin Core node:%n", order = 1)
  NodeOptions node = new NodeOptions();

  @Mixin TxIndexOption txindex = new TxIndexOption();

  @Mixin PrunedCliOptions pruned = new PrunedCliOptions();

  @ArgGroup(validate = false, heading = "%nFilter store (when serve builds it):%n", order = 2)
  StoreOptions store = new StoreOptions();

  @ArgGroup(validate = false, heading = "%nFollowing a running node:%n", order = 3)
  FollowCliOptions follow = new FollowCliOptions();

  @ArgGroup(validate = false, heading = "%nHTTP:%n", order = 4)
  HttpServeOptions http = new HttpServeOptions();

  @ArgGroup(validate = false, heading = "%nEsplora-compatible routes:%n", order = 5)
  EsploraOptions esplora = new EsploraOptions();

  @ArgGroup(validate = false, heading = "%nEthereum node:%n", order = 6)
  EthServeOptions eth = new EthServeOptions();

  @Mixin HelpOption help = new HelpOption();

  ServeCommand(CliContext context) {
    this.context = context;
  }

  /** Serves until the JVM shuts down (Ctrl-C / SIGTERM close the service through a hook). */
  @Override
  public Integer call() throws UsageException, IOException, InterruptedException {
    Started started = start();
    Runtime.getRuntime().addShutdownHook(new Thread(started.service()::close, "bbf-shutdown"));
    started.service().awaitClose();
    return Cli.SERVING;
  }

  /**
   * Parses {@code serve ARGS} and starts the server the caller then waits on and closes (tests, and
   * whoever embeds the command).
   */
  static Started start(
      List<String> args, PrintStream out, PrintStream err, ChainAccess access, Optional<Path> home)
      throws UsageException, IOException {
    CommandLine commandLine = Cli.commandLine(new CliContext(out, err, access, home));
    Cli.parse(commandLine, "serve", args);
    CommandLine serve = // registered by Cli.commandLine, like every command
        Objects.requireNonNull(commandLine.getSubcommands().get("serve"), "the serve command");
    return serve.<ServeCommand>getCommand().start();
  }

  /** Checks which options go together, then starts the server the options ask for. */
  Started start() throws UsageException, IOException {
    OptionRules rules = new OptionRules(spec);
    if (esplora.relay && !follow.follow) {
      throw new UsageException("--esplora-relay needs --follow: it relays to the followed node");
    }
    if (follow.follow) {
      OptionRules.notWith(rules.givenOf("--unsalted", "--file-filters"), "--follow");
    } else {
      OptionRules.needs(rules.given(FollowCliOptions.class, "--follow"), "--follow");
    }
    if (!eth.given()) {
      OptionRules.needs(rules.given(EthOptions.class), "--eth-rpc");
      return BitcoinServe.start(this, context);
    }
    OptionRules.notWith(rules.givenOf("--follow", "--conf"), "--eth-rpc");
    if (!node.given()) {
      OptionRules.notWith(
          rules.givenOf("--work", "--unsalted", "--file-filters", "--esplora-prefix"),
          "--eth-rpc without --datadir");
    }
    return EthServe.start(this, context);
  }
}
