package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every transport that loads here serves real lookups (the mainnet 0-599 fixture, real filters and
 * LevelDB): a present txid at its height, an absent one 404, and a burst of pipelined keep-alive
 * requests on one connection answered in order, which is where io_uring's batched reads and writes
 * differ from epoll's one syscall per read and write.
 */
class TransportTest {
  private static final String PAYMENT_170 =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

  @TempDir static Path tmp;
  static Path datadir;
  static List<String> absent;

  @BeforeAll
  static void extract() throws IOException {
    datadir = Fixtures.extract(Archive.MAINNET_LDB, tmp);
    Set<String> known =
        GroundTruth.load(Archive.MAINNET_LDB, datadir).txs().stream()
            .map(GroundTruth.Tx::txidHex)
            .collect(Collectors.toSet());
    absent = Fixtures.realTxidsAbsentFrom(known, 20);
  }

  @ParameterizedTest
  @EnumSource(
      value = Transport.class,
      names = {"IO_URING", "EPOLL", "NIO"})
  void everyAvailableTransportServesLookups(Transport transport) throws IOException {
    assumeTrue(transport.available(), transport.label() + " does not load on this machine");
    try (Service service = start(transport)) {
      assertEquals(transport, service.server().transport());
      ApiClient api = new ApiClient(service.server().baseUrl());
      ApiClient.Answer present = api.get("/v1/tx/" + PAYMENT_170);
      assertEquals(200, present.status(), present.body());
      assertEquals(170, present.json().get("height").asInt());
      assertEquals(404, api.get("/v1/tx/" + absent.get(0)).status());
      assertPipelinedAnswersInOrder(service);
    }
  }

  @Test
  void autoPrefersIoUringThenEpoll() {
    Transport best =
        Transport.IO_URING.available()
            ? Transport.IO_URING
            : Transport.EPOLL.available() ? Transport.EPOLL : Transport.NIO;
    assertEquals(best, Transport.AUTO.resolve());
  }

  @Test
  void namesParseAndAnUnknownOneListsTheChoices() {
    for (Transport t : Transport.values()) {
      assertEquals(t, Transport.parse(t.label()));
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Transport.parse("kqueue"));
    assertTrue(e.getMessage().contains("io_uring, epoll, nio"), e.getMessage());
  }

  private static Service start(Transport transport) throws IOException {
    return Service.start(
        CoreBackends.open(datadir, tmp.resolve("filters")),
        null,
        new InetSocketAddress("127.0.0.1", 0),
        HttpInitializer.DEFAULT_MAX_BODY_BYTES,
        HttpOptions.DEFAULTS.withTransport(transport, 1));
  }

  /**
   * Twenty absent ids and the block-170 payment, alternating, written in one go on one connection:
   * the answers must come back complete and in request order.
   */
  private static void assertPipelinedAnswersInOrder(Service service) throws IOException {
    StringBuilder requests = new StringBuilder();
    List<String> expected = new ArrayList<>();
    for (String id : absent) {
      requests.append("GET /v1/tx/").append(id).append(" HTTP/1.1\r\nHost: localhost\r\n\r\n");
      requests
          .append("GET /v1/tx/")
          .append(PAYMENT_170)
          .append(" HTTP/1.1\r\nHost: localhost\r\n\r\n");
      expected.add("404:" + id);
      expected.add("200:" + PAYMENT_170);
    }
    InetSocketAddress at = service.server().address();
    try (Socket s = new Socket(at.getAddress(), at.getPort())) {
      s.setSoTimeout(30_000);
      s.getOutputStream().write(requests.toString().getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      List<String> answered = new ArrayList<>();
      for (int i = 0; i < expected.size(); i++) {
        String answer = HttpApiTest.readResponse(in);
        String status = answer.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3);
        int txid = answer.indexOf("\"txid\":\"") + "\"txid\":\"".length();
        answered.add(status + ":" + answer.substring(txid, txid + 64));
      }
      assertEquals(expected, answered);
    }
  }
}
