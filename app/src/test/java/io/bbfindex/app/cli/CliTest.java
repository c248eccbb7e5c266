package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.bitcoincore.ChainAccess;
import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.bitcoincore.StoreChoices;
import io.bbfindex.app.lookup.ChainBackend;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command line's contract: help everywhere, and one line plus exit code 2 for a bad argument.
 */
class CliTest {
  @TempDir Path tmp;

  /** Fails the test if a bad command line ever reaches the chain data. */
  private static final ChainAccess UNREACHABLE =
      new ChainAccess() {
        @Override
        public String ingest(
            Path datadir, Path filters, Path work, StoreChoices store, PrintStream progress) {
          throw new AssertionError("ingest must not run");
        }

        @Override
        public ChainBackend open(ServeRequest request, PrintStream progress) {
          throw new AssertionError("open must not run");
        }
      };

  record Run(int code, String out, String err) {}

  private Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Cli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            UNREACHABLE,
            tmp);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "--help", "-h", "help"})
  void topLevelHelpListsTheCommands(String arg) {
    Run r = arg.isEmpty() ? run() : run(arg);
    assertEquals(0, r.code());
    assertTrue(
        r.out().contains("serve") && r.out().contains("ingest") && r.out().contains("bench"),
        r.out());
  }

  @ParameterizedTest
  @ValueSource(strings = {"serve", "ingest"})
  void everyCommandHasHelp(String command) {
    Run r = run(command, "--help");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("usage: bbf-index " + command), r.out());
    assertEquals("", r.err());
  }

  @Test
  void helpWinsOverOtherOptions() {
    assertEquals(0, run("serve", "--port", "1", "--help").code());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "frobnicate",
        "serve --bogus 1",
        "serve --port 70000",
        "serve --port abc",
        "serve --port",
        "serve --port 1 --port 2",
        "serve --bind example.com",
        "serve --datadir /nonexistent",
        "serve --filters /tmp/x",
        "serve stray",
        "serve --datadir /nonexistent-dir --filters /tmp/f",
        "ingest",
        "ingest --datadir /nonexistent-dir --out /tmp/x",
        "ingest --datadir /tmp --out /tmp/x --fpr 1.5",
        "ingest --datadir /tmp --out /tmp/x --fpr nope",
        "ingest --out /tmp/x",
        "bench nosuch",
        "bench filters",
        "test",
        "serve --cors-origins a --cors-origins b",
        "serve --rate-limit 5 --rate-limit=6",
        "serve --range-bits 4",
        "serve --follow --datadir /tmp --file-filters",
        "serve --eth-rpc http://127.0.0.1:1 --unsalted",
        "serve --eth-rpc http://127.0.0.1:1 --follow",
        "ingest --datadir /tmp --depth 3",
        "ingest --eth-rpc http://127.0.0.1:1 --out /tmp/x --datadir /tmp",
        "ingest --eth-rpc http://127.0.0.1:1 --out /tmp/x --file-filters",
        "ingest --datadir /tmp --fpr=",
        "ingest --datadir="
      })
  void aBadCommandLineIsOneLineOnStderrAndExitCode2(String line) {
    Run r = run(line.split(" "));
    assertEquals(2, r.code(), line + " -> " + r.err());
    assertEquals("", r.out());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith("bbf-index"), r.err());
  }

  @Test
  void theDemoNeedsItsArchiveAndSaysWhereItLooked() {
    Run r = run("serve", "--port", "0");
    assertEquals(1, r.code());
    assertTrue(
        r.err().contains("embedded demo archive is missing") && r.err().contains(tmp.toString()),
        r.err());
    assertEquals(1, r.err().lines().count(), r.err());
  }

  @Test
  void ingestRefusesADatadirWithoutBlocks() throws IOException {
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    Run r = run("ingest", "--datadir", empty.toString(), "--out", tmp.resolve("f").toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("no blocks/ folder"), r.err());
  }
}
