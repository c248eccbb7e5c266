package io.bbfindex.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "serve your own node" commands, as written, with {@code ~} a user's home whose
 * {@code .bitcoin} is a data directory written by a real Bitcoin Core (0.21.1, mainnet blocks
 * 0-599); then the same without naming a store: both commands find the default one.
 */
class DataDirCommandsTest {
  private static final String TX_170 =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
  private static final Pattern STORE = Pattern.compile("filter store (\\S+) \\(the default");

  @TempDir Path home;

  @Test
  void ingestThenServeTheStoreAndTheDefaultStore() throws Exception {
    Path extracted = Fixtures.extract(Fixtures.Archive.MAINNET_LDB, home.resolve("fixture"));
    Files.move(extracted, home.resolve(".bitcoin"));
    Map<String, String> env = Map.of("HOME", home.toString());

    Launcher.Result ingest =
        Launcher.run(Launcher.root(), env, Duration.ofMinutes(10), ReadmeCommands.INGEST);
    assertEquals(0, ingest.exitCode(), ingest.output());
    assertTrue(Files.isDirectory(home.resolve("bbf-filters")), ingest.output());
    try (Launcher.Server s =
        Launcher.serve(
            Launcher.root(),
            env,
            Duration.ofMinutes(5),
            Launcher.onFreePort(ReadmeCommands.SERVE_STORE))) {
      assertConfirmed170(s.baseUrl());
    }

    // without --out / --filters: one default store, outside the node's directory, found by both
    Launcher.Result defaultIngest =
        Launcher.run(
            Launcher.root(),
            env,
            Duration.ofMinutes(10),
            "./bbf-index ingest --datadir ~/.bitcoin");
    assertEquals(0, defaultIngest.exitCode(), defaultIngest.output());
    Matcher m = STORE.matcher(defaultIngest.output());
    assertTrue(m.find(), defaultIngest.output());
    Path store = Path.of(m.group(1));
    assertTrue(store.startsWith(home.resolve(".local/share/bbf-index")), store.toString());
    assertTrue(Files.isDirectory(store), store.toString());
    try (Launcher.Server s =
        Launcher.serve(
            Launcher.root(),
            env,
            Duration.ofMinutes(5),
            Launcher.onFreePort("./bbf-index serve --datadir ~/.bitcoin"))) {
      assertTrue(s.output().contains("filter store " + store + " "), s.output());
      assertConfirmed170(s.baseUrl());
    }
  }

  private static void assertConfirmed170(String base) throws Exception {
    Http.Answer a = Http.get(base + "/v1/tx/" + TX_170);
    assertEquals(200, a.status(), a.body().toString());
    assertEquals("confirmed", a.body().path("status").asText());
    assertEquals(170, a.body().path("height").asInt());
  }
}
