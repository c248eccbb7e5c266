package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #15 D5 and D6, against a real data directory: an absurd {@code --fpr} is a usage error
 * before any work; errors name the thing at fault (the work directory, the store path, the port),
 * and a port in use is found before the store is built.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommandErrorsTest {
  @TempDir static Path tmp;
  private Path datadir;

  @BeforeAll
  void fixture() throws IOException {
    datadir = Fixtures.extract(Archive.REGTEST_B, tmp.resolve("data"));
  }

  /**
   * {@code ingest --datadir D --out STORE} or {@code serve --datadir D --filters STORE --port 0}.
   */
  private String[] withStore(String command, Path store, String... more) {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            command.equals("ingest")
                ? java.util.List.of(
                    "ingest", "--datadir", datadir.toString(), "--out", store.toString())
                : java.util.List.of(
                    "serve",
                    "--datadir",
                    datadir.toString(),
                    "--filters",
                    store.toString(),
                    "--port",
                    "0"));
    args.addAll(java.util.List.of(more));
    return args.toArray(String[]::new);
  }

  /** The line of stderr that says why the command failed. */
  private static String why(IngestCommandTest.Run r) {
    return r.err()
        .lines()
        .filter(l -> l.startsWith("bbf-index"))
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no error line: " + r.err()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"1e-300", "1e-25", "1e-10", "0.6", "0.99"})
  void anFprOutsideItsBoundsIsAUsageErrorThatWritesNothing(String fpr) {
    Path out = tmp.resolve("fpr-" + fpr);
    for (String command : new String[] {"ingest", "serve"}) {
      IngestCommandTest.Run r = IngestCommandTest.run(withStore(command, out, "--fpr", fpr));
      assertEquals(2, r.code(), command + " --fpr " + fpr + ": " + r.err());
      assertEquals(1, r.err().lines().count(), "one line, no stack trace: " + r.err());
      assertTrue(r.err().contains("--fpr") && r.err().contains("1.0E-9"), r.err());
      assertFalse(Files.exists(out), "nothing written for --fpr " + fpr);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ingest", "serve"})
  void aWorkDirectoryThatCannotBeCreatedIsNamedNotTheDatadir(String command) throws IOException {
    Path file = Files.writeString(tmp.resolve(command + "-not-a-dir"), "x");
    Path work = file.resolve("work");
    IngestCommandTest.Run r =
        IngestCommandTest.run(
            withStore(command, tmp.resolve(command + "-work-filters"), "--work", work.toString()));
    String why = why(r);
    assertEquals(1, r.code(), r.err());
    assertTrue(why.contains(work.toString()) && why.contains("work directory"), why);
    assertFalse(why.contains("could not be read"), "does not blame the datadir: " + why);
    assertTrue(why.contains("Not a directory"), "says why: " + why);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ingest", "serve"})
  void aStorePathThatIsAFileSaysSo(String command) throws IOException {
    Path file = Files.writeString(tmp.resolve(command + "-store-file"), "x");
    IngestCommandTest.Run r = IngestCommandTest.run(withStore(command, file));
    String why = why(r);
    assertEquals(1, r.code(), r.err());
    assertTrue(why.contains(file.toString()) && why.contains("not a directory"), why);
  }

  @org.junit.jupiter.api.Test
  void aPortInUseIsAUsageErrorFoundBeforeTheStoreIsBuilt() throws IOException {
    Path filters = tmp.resolve("port-filters");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      IngestCommandTest.Run r =
          IngestCommandTest.run(
              "serve",
              "--datadir",
              datadir.toString(),
              "--filters",
              filters.toString(),
              "--port",
              Integer.toString(port));
      assertEquals(2, r.code(), r.err());
      String why = why(r);
      assertTrue(why.contains(Integer.toString(port)) && why.contains("in use"), why);
      assertFalse(Files.exists(filters), "the store is not built for a server that cannot start");
    }
  }
}
