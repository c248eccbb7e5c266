package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ingest} then {@code serve} from the command line over a real Core data directory. */
class IngestCommandTest {
  @TempDir Path tmp;

  record Run(int code, String out, String err) {}

  /** Runs the command line in this JVM with the production chain access, capturing its output. */
  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Cli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new CoreChainAccess(),
            Optional.empty());
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void ingestBuildsTheStoreARerunKeepsItAndServeUsesIt() throws Exception {
    Path datadir = Fixtures.extract(Archive.REGTEST_B, tmp);
    Path filters = tmp.resolve("filters");
    Run first =
        run(
            "ingest",
            "--datadir",
            datadir.toString(),
            "--out",
            filters.toString(),
            "--fpr",
            "0.001");
    assertEquals(0, first.code(), first.err());
    assertTrue(first.out().contains("filter store: " + filters), first.out());
    assertTrue(Files.isRegularFile(filters.resolve("tx-summary.bbf")), "summary filter written");

    Run again =
        run(
            "ingest",
            "--datadir",
            datadir.toString(),
            "--out",
            filters.toString(),
            "--fpr",
            "0.001");
    assertEquals(0, again.code(), again.err());
    assertTrue(
        again.out().contains("0 rebuilt"),
        "a re-run with nothing changed rebuilds nothing: " + again.out());

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ServeCommand.Started started =
        ServeCommand.start(
            List.of(
                "--datadir", datadir.toString(), "--filters", filters.toString(), "--port", "0"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(OutputStream.nullOutputStream()),
            new CoreChainAccess(),
            Optional.empty());
    try (var service = started.service()) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      var filtersJson = api.get("/v1/filters").json().get("filters");
      assertEquals(
          2,
          filtersJson.size(),
          "the summary and the block hashes (no per-file filters by default): " + filtersJson);
      double summaryFpr =
          api.metric("bbf_filter_modelled_fpr", java.util.Map.of("filter", "tx-summary.bbf"));
      assertTrue(
          summaryFpr > 0 && summaryFpr <= 0.001,
          "the store ingest built at --fpr 0.001 is served as it is, not rebuilt at serve's"
              + " default: "
              + summaryFpr);
    }
  }

  /**
   * {@code --file-filters} writes one filter per block file, {@code serve --file-filters} keeps and
   * lists them, and a build without the option removes them.
   */
  @Test
  void fileFiltersAreAUserChoiceOfIngestAndServe() throws Exception {
    Path datadir = Fixtures.extract(Archive.REGTEST_B, tmp);
    Path filters = tmp.resolve("filters");
    String[] ingest = {"ingest", "--datadir", datadir.toString(), "--out", filters.toString()};
    Run with = run(concat(ingest, "--file-filters"));
    assertEquals(0, with.code(), with.err());
    long written = fileFilters(filters);
    assertTrue(written > 0, "a tx-blkNNNNN.bbf per block file: " + with.out());

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ServeCommand.Started started =
        ServeCommand.start(
            List.of(
                "--datadir",
                datadir.toString(),
                "--filters",
                filters.toString(),
                "--port",
                "0",
                "--file-filters"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(OutputStream.nullOutputStream()),
            new CoreChainAccess(),
            Optional.empty());
    try (var service = started.service()) {
      var listed = new ApiClient(service.server().baseUrl()).get("/v1/filters").json();
      assertEquals(2 + written, listed.get("filters").size(), listed.toString());
    }
    assertEquals(written, fileFilters(filters), "serve --file-filters keeps them");

    Run without = run(ingest);
    assertEquals(0, without.code(), without.err());
    assertEquals(0, fileFilters(filters), "a build without --file-filters removes them");
  }

  private static long fileFilters(Path store) throws java.io.IOException {
    try (var files = Files.list(store)) {
      return files.filter(f -> f.getFileName().toString().matches("tx-blk\\d+\\.bbf")).count();
    }
  }

  private static String[] concat(String[] args, String... more) {
    return java.util.stream.Stream.concat(
            java.util.Arrays.stream(args), java.util.Arrays.stream(more))
        .toArray(String[]::new);
  }

  @Test
  void ingestOfADirectoryThatIsNotADatadirExitsWith1AndSaysWhy() throws Exception {
    Path fake = Files.createDirectories(tmp.resolve("fake/blocks"));
    Run r =
        run(
            "ingest",
            "--datadir",
            fake.getParent().toString(),
            "--out",
            tmp.resolve("f").toString());
    assertEquals(1, r.code(), r.err());
    String why =
        r.err()
            .lines()
            .filter(l -> l.startsWith("bbf-index ingest: "))
            .findFirst()
            .orElseThrow(() -> new AssertionError(r.err()));
    assertTrue(why.contains(fake.getParent().toString()), "names the directory: " + why);
  }
}
