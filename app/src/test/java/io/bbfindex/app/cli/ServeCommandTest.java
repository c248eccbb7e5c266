package io.bbfindex.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.bitcoincore.ChainAccess;
import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.bitcoincore.StoreChoices;
import io.bbfindex.app.demo.EmbeddedDemo;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} end to end from the command line: the embedded demo and an explicit data directory.
 */
class ServeCommandTest {
  private static final Pattern LISTENING =
      Pattern.compile(
          "^listening on (http://127\\.0\\.0\\.1:(\\d+)) \\((io_uring|epoll|nio)\\)$",
          Pattern.MULTILINE);

  @TempDir Path home;

  /** The production chain access, recording what the command asked it to open. */
  static final class RecordingAccess implements ChainAccess {
    Path datadir;
    Path filters;

    @Override
    public String ingest(
        Path datadir, Path filters, Path work, StoreChoices store, PrintStream progress) {
      throw new AssertionError("serve opens, it does not call ingest directly");
    }

    @Override
    public ChainBackend open(ServeRequest request, PrintStream progress) throws IOException {
      this.datadir = request.datadir();
      this.filters = request.filters();
      return new CoreChainAccess().open(request, progress);
    }
  }

  @Test
  void theEmbeddedDemoIsExtractedOnFirstRunServedAndPrintsWorkingCurlCommands() throws Exception {
    Files.createDirectories(home.resolve("fixtures"));
    Files.createSymbolicLink(
        home.resolve(EmbeddedDemo.ARCHIVE), Fixtures.archive(Archive.MAINNET_LDB));
    RecordingAccess access = new RecordingAccess();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ServeCommand.Started started =
        ServeCommand.start(
            List.of("--port", "0"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            access,
            Optional.of(home));
    try (var service = started.service()) {
      assertEquals(home.resolve("data/demo/datadir"), access.datadir);
      assertEquals(home.resolve("data/demo/filters"), access.filters);
      assertTrue(Files.isRegularFile(home.resolve("data/demo/datadir/blocks/blk00000.dat")));
      String printed = out.toString(StandardCharsets.UTF_8);
      Matcher m = LISTENING.matcher(printed);
      assertTrue(m.find(), printed);
      assertEquals(service.server().address().getPort(), Integer.parseInt(m.group(2)));
      ApiClient api = new ApiClient(m.group(1));
      // Every printed GET example answers as advertised.
      assertTrue(
          printed.contains("curl -s " + m.group(1) + "/v1/tx/" + EmbeddedDemo.PAYMENT_170),
          printed);
      JsonNode payment = api.get("/v1/tx/" + EmbeddedDemo.PAYMENT_170).json();
      assertEquals("confirmed", payment.get("status").asText());
      assertEquals(170, payment.get("height").asInt());
      assertEquals(EmbeddedDemo.BLOCK_170, payment.get("blockHash").asText());
      assertEquals(404, api.get("/v1/tx/" + EmbeddedDemo.LATER_TXID).status());
      assertEquals(
          170, api.get("/v1/block/" + EmbeddedDemo.BLOCK_170).json().get("height").asInt());
    }
    // A second run reuses the extracted directory instead of extracting again.
    ByteArrayOutputStream err2 = new ByteArrayOutputStream();
    ServeCommand.Started again =
        ServeCommand.start(
            List.of("--port", "0"),
            new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err2, true, StandardCharsets.UTF_8),
            new RecordingAccess(),
            Optional.of(home));
    again.service().close();
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("extracting"));
    assertTrue(
        !err2.toString(StandardCharsets.UTF_8).contains("extracting"),
        err2.toString(StandardCharsets.UTF_8));
  }

  @Test
  void anExplicitDatadirIsServedOnTheAskedAddress() throws Exception {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, home);
    RecordingAccess access = new RecordingAccess();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ServeCommand.Started started =
        ServeCommand.start(
            List.of(
                "--datadir",
                datadir.toString(),
                "--filters",
                home.resolve("f").toString(),
                "--port=0",
                "--bind",
                "127.0.0.1"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err,
            access,
            Optional.empty());
    try (var service = started.service()) {
      String printed = out.toString(StandardCharsets.UTF_8);
      assertEquals(
          1, printed.lines().count(), "no demo examples for a user's own datadir: " + printed);
      Matcher m = LISTENING.matcher(printed);
      assertTrue(m.find(), printed);
      assertEquals(200, new ApiClient(m.group(1)).get("/readyz").status());
    }
  }

  @Test
  void httpLimitOptionsReachTheServer() throws Exception {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, home);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<String> args = new java.util.ArrayList<>(List.of("--datadir", datadir.toString()));
    args.addAll(
        List.of(
            "--filters",
            home.resolve("f").toString(),
            "--port=0",
            "--cors-origins",
            "https://wallet.example, http://localhost:3000",
            "--rate-limit",
            "1",
            "--rate-burst",
            "2",
            "--max-connections",
            "50",
            "--idle-timeout",
            "5",
            "--request-timeout",
            "5"));
    ServeCommand.Started started =
        ServeCommand.start(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err,
            new RecordingAccess(),
            Optional.empty());
    try (var service = started.service()) {
      Matcher m = LISTENING.matcher(out.toString(StandardCharsets.UTF_8));
      assertTrue(m.find());
      java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
      java.net.http.HttpRequest get =
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(m.group(1) + "/v1/status"))
              .header("Origin", "http://localhost:3000")
              .build();
      List<Integer> statuses = new java.util.ArrayList<>();
      String allowOrigin = null;
      for (int i = 0; i < 3; i++) {
        var r = http.send(get, java.net.http.HttpResponse.BodyHandlers.ofString());
        statuses.add(r.statusCode());
        allowOrigin = r.headers().firstValue("Access-Control-Allow-Origin").orElse(allowOrigin);
      }
      assertEquals(List.of(200, 200, 429), statuses, "burst 2, then over 1 request/s");
      assertEquals("http://localhost:3000", allowOrigin);
    }
  }

  @Test
  void badHttpLimitOptionsAreUsageErrorsBeforeAnythingIsOpened() {
    for (List<String> bad :
        List.of(
            List.of("--cors-origins", "https://wallet.example/path"),
            List.of("--cors-origins", "wallet.example"),
            List.of("--rate-limit", "-1"),
            List.of("--rate-burst", "5"),
            List.of("--max-connections", "0"),
            List.of("--idle-timeout", "0"),
            List.of("--request-timeout", "soon"))) {
      UsageException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              UsageException.class,
              () ->
                  ServeCommand.start(
                      bad, System.out, System.err, new RecordingAccess(), Optional.of(home)),
              bad.toString());
      assertTrue(e.getMessage().contains(bad.getFirst()), e.getMessage());
    }
  }
}
