package io.bbfindex.app.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.ApiClient.Answer;
import io.bbfindex.app.testing.InMemoryChainBackend;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection guards against a real server on 127.0.0.1, driven over raw sockets where a normal
 * client would not misbehave enough: idle and slowloris connections (D2), pipelined requests never
 * read (D3), foreign HTTP versions (D7), the connection cap and the per-client rate limit. Each
 * test starts its own server with the limits it exercises, so counters start at zero.
 */
class ConnectionGuardsTest {
  @TempDir static Path tmp;
  static GroundTruth truth;

  @BeforeAll
  static void loadFixture() throws IOException {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, tmp);
    truth = GroundTruth.load(Archive.MAINNET_LDB, datadir);
  }

  private static Service start(HttpOptions options) throws IOException {
    return Service.start(
        new InMemoryChainBackend(truth, Set.of(), 599),
        null,
        new InetSocketAddress("127.0.0.1", 0),
        HttpInitializer.DEFAULT_MAX_BODY_BYTES,
        options);
  }

  private static Socket connect(Service service) throws IOException {
    Socket s = new Socket();
    s.connect(service.server().address(), 5_000);
    return s;
  }

  private static void send(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
  }

  /** Whether the server closed the connection: a read sees EOF/RST rather than blocking. */
  private static boolean closed(Socket s) {
    return !stillOpen(s);
  }

  private static boolean stillOpen(Socket s) {
    try {
      s.setSoTimeout(1);
      InputStream in = s.getInputStream();
      while (in.read() >= 0) {
        // drain an answer (408) the server wrote before closing
      }
      return false;
    } catch (SocketTimeoutException open) {
      return true;
    } catch (IOException reset) {
      return false;
    }
  }

  /**
   * D2: 2,000 idle connections and 200 slowloris ones (a header line every 500 ms, so they are
   * never idle) are all closed by the idle and request timeouts, and {@code /livez} answers
   * throughout. Before the fix: "idle still open: 2000 of 2000, slowloris still open: 200 of 200
   * after 8 s".
   */
  @Test
  void idleAndSlowlorisConnectionsAreClosedAndLivezKeepsAnswering() throws Exception {
    HttpOptions options =
        HttpOptions.DEFAULTS.withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2));
    List<Socket> idle = new ArrayList<>();
    List<Socket> loris = new ArrayList<>();
    try (Service service = start(options)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      for (int i = 0; i < 2_000; i++) {
        idle.add(connect(service));
      }
      for (int i = 0; i < 200; i++) {
        Socket s = connect(service);
        send(s, "GET /livez HTTP/1.1\r\n");
        loris.add(s);
      }
      // Timeouts of 2 s: everything should be closed after about 4 s. The machine running the
      // tests may be loaded (the accept queue overflows with 2,200 connects), so poll up to 20 s.
      long start = System.nanoTime();
      long deadline = start + Duration.ofSeconds(20).toNanos();
      List<Socket> idleOpen = new ArrayList<>(idle);
      List<Socket> lorisOpen = new ArrayList<>(loris);
      for (int n = 0; System.nanoTime() < deadline; n++) {
        for (Socket s : lorisOpen) {
          try {
            send(s, "X-" + n + ": y\r\n");
          } catch (IOException closedByServer) {
            // expected once the request timeout fired
          }
        }
        long t0 = System.nanoTime();
        assertEquals(200, api.get("/livez").status());
        assertTrue(
            System.nanoTime() - t0 < Duration.ofSeconds(2).toNanos(), "/livez took over 2 s");
        Thread.sleep(500);
        if (System.nanoTime() - start > Duration.ofSeconds(4).toNanos()) {
          idleOpen.removeIf(ConnectionGuardsTest::closed);
          lorisOpen.removeIf(ConnectionGuardsTest::closed);
          if (idleOpen.isEmpty() && lorisOpen.isEmpty()) {
            break;
          }
        }
      }
      System.out.printf(
          "D2: 2,000 idle and 200 slowloris connections closed after %.1f s%n",
          (System.nanoTime() - start) / 1e9);
      assertEquals(
          0,
          idleOpen.size() + lorisOpen.size(),
          "idle still open: "
              + idleOpen.size()
              + " of 2000, slowloris still open: "
              + lorisOpen.size()
              + " of 200 after 20 s");
      double idleClosed =
          api.metric("bbf_http_connections_timed_out_total", Map.of("reason", "idle"));
      double requestClosed =
          api.metric("bbf_http_connections_timed_out_total", Map.of("reason", "request"));
      System.out.printf(
          "D2: closed by idle timeout %.0f, by request timeout %.0f%n", idleClosed, requestClosed);
      assertTrue(idleClosed >= 2_000, "idle closes counted: " + idleClosed);
      assertTrue(requestClosed >= 200, "request timeouts counted: " + requestClosed);
    } finally {
      for (Socket s : idle) {
        s.close();
      }
      for (Socket s : loris) {
        s.close();
      }
    }
  }

  /** A slowloris request that times out gets a 408 before the close. */
  @Test
  void aRequestThatDoesNotArriveInTimeGets408() throws Exception {
    HttpOptions options =
        HttpOptions.DEFAULTS.withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(1));
    try (Service service = start(options);
        Socket s = connect(service)) {
      s.setSoTimeout(10_000);
      send(s, "GET /livez HTTP/1.1\r\nHost: localhost\r\n");
      String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertTrue(all.startsWith("HTTP/1.1 408 Request Timeout\r\n"), all);
      assertTrue(all.contains("\"request_timeout\""), all);
    }
  }

  /**
   * D3: 680 KB of pipelined {@code GET /metrics} (about 20,000 requests, each answered with ~86 KB)
   * from a client that reads nothing. The server stops reading once a connection holds more than
   * its high water mark of answers, so what it queues stays bounded. Before the fix the server's
   * memory (heap + Netty direct) grew by hundreds of MB in 10 s and kept growing.
   */
  @Test
  void pipelinedRequestsNeverReadDoNotMakeTheServerBufferUnboundedAnswers() throws Exception {
    try (Service service = start(HttpOptions.DEFAULTS)) {
      ApiClient api = new ApiClient(service.server().baseUrl());
      double queuedBefore = api.metric("bbf_http_outbound_queued_bytes");
      byte[] one =
          "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
      int count = 680 * 1024 / one.length;
      byte[] all = new byte[count * one.length];
      for (int i = 0; i < count; i++) {
        System.arraycopy(one, 0, all, i * one.length, one.length);
      }
      try (Socket s = new Socket()) {
        s.setReceiveBufferSize(4096);
        s.connect(service.server().address(), 5_000);
        Thread writer =
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        s.getOutputStream().write(all);
                      } catch (IOException closed) {
                        // the server may close it at the end of the test
                      }
                    });
        double served = 0;
        double queued = 0;
        for (int i = 0; i < 10; i++) {
          Thread.sleep(1_000);
          queued = api.metric("bbf_http_outbound_queued_bytes");
          served = api.metric("bbf_http_request_seconds_count", Map.of("route", "metrics"));
        }
        double paused = api.metric("bbf_http_reads_paused_total");
        System.out.printf(
            "D3: %d pipelined GET /metrics (%d bytes) never read: queued answer bytes %.0f before,"
                + " %.0f after 10 s; metrics answers rendered %.0f; reads paused %.0f times%n",
            count, all.length, queuedBefore, queued, served, paused);
        assertTrue(queued < 1 << 20, "queued answer bytes: " + queued);
        assertTrue(paused >= 1, "reads paused: " + paused);
        // Bounded rendering too: only what fits under the mark plus the polls of this test.
        assertTrue(served < 200, "answers rendered for a peer that reads none: " + served);
        writer.interrupt();
      }
    }
  }

  /** D7: a request in another HTTP version is answered 505 in HTTP/1.1 and closed. */
  @Test
  void aForeignHttpVersionGets505() throws IOException {
    try (Service service = start(HttpOptions.DEFAULTS)) {
      for (String version : List.of("HTTP/9.9", "HTTP/2.0", "HTTP/1.2", "HTTP/0.9")) {
        try (Socket s = connect(service)) {
          s.setSoTimeout(5_000);
          send(s, "GET /livez " + version + "\r\nHost: localhost\r\n\r\n");
          String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
          assertEquals(
              "HTTP/1.1 505 HTTP Version Not Supported",
              all.split("\r\n")[0],
              version + ": " + all);
          assertTrue(all.contains("\"http_version_not_supported\""), all);
        }
      }
      try (Socket s = connect(service)) {
        s.setSoTimeout(5_000);
        send(s, "GET /livez HTTP/1.0\r\n\r\n");
        String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertTrue(all.startsWith("HTTP/1.0 200 OK\r\n"), all);
      }
    }
  }

  /**
   * Over {@code --max-connections} a new connection is admitted into the health reserve: a health
   * route answers 200 there, anything else gets a 503 and the connection is closed, an idle one is
   * closed within seconds; over the reserve too a connection gets the 503 at once. The ones already
   * open keep being served, and a connection is admitted again once one closes. Before the fix the
   * health request over the cap was the immediate 503 too.
   */
  @Test
  void connectionsOverTheCapAreRefusedButHealthChecksStillGetThrough() throws Exception {
    try (Service service = start(HttpOptions.DEFAULTS.withMaxConnections(5))) {
      List<Socket> held = new ArrayList<>();
      try {
        for (int i = 0; i < 5; i++) {
          Socket s = connect(service);
          s.setSoTimeout(5_000);
          held.add(s);
        }
        for (Socket s : held) { // all five admitted and answering
          send(s, "GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n");
          assertTrue(readHead(s).startsWith("HTTP/1.1 200 OK"));
        }
        for (String health : List.of("/livez", "/readyz", "/metrics")) {
          try (Socket check = connect(service)) {
            check.setSoTimeout(5_000);
            send(check, "GET " + health + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertEquals("HTTP/1.1 200 OK", readHead(check), health + " over the cap");
          }
        }
        for (int i = 0; i < 3; i++) {
          try (Socket over = connect(service)) {
            over.setSoTimeout(5_000);
            send(over, "GET /v1/status HTTP/1.1\r\nHost: localhost\r\n\r\n");
            String refused =
                new String(over.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(refused.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), refused);
            assertTrue(refused.contains("\"too_many_connections\""), refused);
            assertTrue(refused.toLowerCase(java.util.Locale.ROOT).contains("retry-after: 1"));
          }
        }
        try (Socket idle = connect(service)) {
          Thread.sleep(ConnectionCap.RESERVE_FIRST_REQUEST_MILLIS + 1_000);
          assertTrue(closed(idle), "an idle connection in the reserve is closed");
        }
        List<Socket> reserve = new ArrayList<>();
        try {
          for (int i = 0; i < ConnectionCap.HEALTH_RESERVE; i++) {
            Socket r = connect(service);
            r.setSoTimeout(5_000);
            reserve.add(r);
            send(r, "GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n"); // admitted and kept
            assertEquals("HTTP/1.1 200 OK", readHead(r), "reserve connection " + i);
          }
          try (Socket over = connect(service)) { // over the reserve too: refused at once
            over.setSoTimeout(5_000);
            String refused =
                new String(over.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(refused.contains("\"too_many_connections\""), refused);
          }
        } finally {
          for (Socket r : reserve) {
            r.close();
          }
        }
        for (Socket s : held) { // the admitted ones did not notice
          send(s, "GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n");
          assertTrue(readHead(s).startsWith("HTTP/1.1 200 OK"));
        }
        held.removeFirst().close();
        Answer again = waitForAdmission(new ApiClient(service.server().baseUrl()));
        assertEquals(200, again.status());
        assertEquals(4.0, refusedCount(held), "refusals counted");
      } finally {
        for (Socket s : held) {
          s.close();
        }
      }
    }
  }

  private static double refusedCount(List<Socket> held) throws IOException {
    // Read the counter over a held connection: a new one could be refused itself.
    Socket s = held.getFirst();
    send(s, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
    String text = readResponse(s);
    for (String line : text.split("\n")) {
      if (line.startsWith("bbf_http_connections_refused_total ")) {
        return Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
      }
    }
    throw new AssertionError("no bbf_http_connections_refused_total in " + text);
  }

  private static Answer waitForAdmission(ApiClient api) throws InterruptedException {
    for (int i = 0; ; i++) {
      try {
        Answer a = api.get("/livez");
        if (a.status() == 200 || i == 50) {
          return a;
        }
      } catch (RuntimeException refused) {
        if (i == 50) {
          throw refused;
        }
      }
      Thread.sleep(100);
    }
  }

  /**
   * Over {@code --rate-limit} a client IP gets 429 with {@code Retry-After} and its connection
   * stays usable; after the wait it is served again.
   */
  @Test
  void aClientOverItsRateGets429WithRetryAfter() throws Exception {
    try (Service service = start(HttpOptions.DEFAULTS.withRateLimit(1, 5));
        Socket s = connect(service)) {
      s.setSoTimeout(5_000);
      List<String> statuses = new ArrayList<>();
      String limited = null;
      for (int i = 0; i < 8; i++) {
        send(s, "GET /v1/status HTTP/1.1\r\nHost: localhost\r\n\r\n");
        String response = readResponse(s);
        statuses.add(response.split("\r\n")[0]);
        if (response.startsWith("HTTP/1.1 429")) {
          limited = response;
        }
      }
      assertEquals(
          5, statuses.stream().filter(l -> l.endsWith(" 200 OK")).count(), statuses.toString());
      assertEquals(
          3, statuses.stream().filter(l -> l.contains(" 429 ")).count(), statuses.toString());
      String headers = limited.toLowerCase(java.util.Locale.ROOT);
      assertTrue(headers.contains("retry-after: 1\r\n"), limited);
      assertTrue(limited.contains("\"rate_limited\""), limited);
      Thread.sleep(1_100); // one token back at 1 request/s
      send(s, "GET /v1/status HTTP/1.1\r\nHost: localhost\r\n\r\n");
      assertTrue(readResponse(s).startsWith("HTTP/1.1 200 OK"), "served again after the wait");
      send(s, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
      String metrics = readResponse(s);
      assertTrue(
          metrics.contains("bbf_http_requests_rate_limited_total 3.0"),
          metrics.lines().filter(l -> l.contains("rate_limited")).toList().toString());
    }
  }

  /**
   * Issue 28 point 4: under {@code --rate-limit 5} and thousands of requests per second from the
   * same address (pipelined lookups on four connections for 3 s), {@code /livez} and {@code
   * /readyz} asked from that address keep answering 200 while the lookups get 429. Before the fix
   * they got 429 as well.
   */
  @Test
  void healthAndReadinessAreNeverRateLimitedUnderLoadFromTheSameAddress() throws Exception {
    try (Service service = start(HttpOptions.DEFAULTS.withRateLimit(5, 5))) {
      String lookup = "GET /v1/tx/" + "ab".repeat(32) + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
      byte[] burst = lookup.repeat(BURST).getBytes(StandardCharsets.US_ASCII);
      long started = System.nanoTime();
      java.util.concurrent.atomic.AtomicBoolean stop =
          new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
      java.util.concurrent.atomic.AtomicLong limited = new java.util.concurrent.atomic.AtomicLong();
      List<Thread> load = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        load.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try (Socket s = connect(service)) {
                        s.setSoTimeout(10_000);
                        InputStream in = s.getInputStream();
                        byte[] buffer = new byte[1 << 16];
                        while (!stop.get()) {
                          s.getOutputStream().write(burst);
                          AnswerCounter counts = new AnswerCounter();
                          while (counts.answers < BURST) {
                            int n = in.read(buffer);
                            if (n < 0) {
                              throw new IOException("closed after " + counts.answers + " answers");
                            }
                            counts.feed(buffer, n);
                          }
                          sent.addAndGet(BURST);
                          limited.addAndGet(counts.limited);
                        }
                      } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                      }
                    }));
      }
      List<String> health = new ArrayList<>();
      try (Socket s = connect(service)) {
        s.setSoTimeout(5_000);
        // At least 3 s, and on until 21,000 requests (3 s at 7,000/s) or 10 s on a slow machine.
        for (long t = 0;
            t < 3_000_000_000L || (sent.get() < 21_000 && t < 10_000_000_000L);
            t = System.nanoTime() - started) {
          for (String path : List.of("/livez", "/readyz")) {
            send(s, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
            health.add(path + " " + readHead(s));
          }
          Thread.sleep(20);
        }
      }
      stop.set(true);
      for (Thread t : load) {
        t.join(20_000);
      }
      double rate = sent.get() / ((System.nanoTime() - started) / 1e9);
      System.out.printf(
          java.util.Locale.ROOT,
          "rate limit 5/s: %,d lookups at %,.0f req/s from 127.0.0.1, %,d answered 429; %d"
              + " health checks meanwhile%n",
          sent.get(),
          rate,
          limited.get(),
          health.size());
      assertTrue(limited.get() > sent.get() / 2, "the lookups were rate limited: " + limited);
      // The rate depends on the machine (7,000+ requests/s on a quiet one); the count is a floor.
      assertTrue(sent.get() >= 500, "load from one address: " + sent + " requests");
      assertTrue(health.size() >= 4, health.toString());
      List<String> bad = health.stream().filter(h -> !h.endsWith(" 200 OK")).toList();
      assertEquals(List.of(), bad, "health and readiness answers under the rate limit");
    }
  }

  private static final int BURST = 100;

  /**
   * Counts answer heads ("HTTP/1.1 " and a status) in a byte stream, and the 429s among them, one
   * byte at a time across reads: no strings, so that one client thread can keep the server busy at
   * several thousand requests a second.
   */
  private static final class AnswerCounter {
    private static final byte[] HEAD = "HTTP/1.1 ".getBytes(StandardCharsets.US_ASCII);
    private final byte[] status = new byte[3];
    private int matched; // bytes of HEAD, then of the status, seen so far
    int answers;
    int limited;

    void feed(byte[] buffer, int n) {
      for (int i = 0; i < n; i++) {
        byte b = buffer[i];
        if (matched < HEAD.length) {
          matched = b == HEAD[matched] ? matched + 1 : b == HEAD[0] ? 1 : 0;
        } else {
          status[matched++ - HEAD.length] = b;
          if (matched == HEAD.length + status.length) {
            answers++;
            if (status[0] == '4' && status[1] == '2' && status[2] == '9') {
              limited++;
            }
            matched = 0;
          }
        }
      }
    }
  }

  /**
   * A request naming a host the server was not told it is gets 421 {@code host_not_allowed} (DNS
   * rebinding); IP literals, {@code localhost} names and {@code --allowed-hosts} names pass, with
   * or without a port. Before the fix every Host was served.
   */
  @Test
  void aHostHeaderOfAnotherNameIsRefused() throws Exception {
    try (Service service =
            start(HttpOptions.DEFAULTS.withAllowedHosts(List.of("bbf.example.com")));
        Socket s = connect(service)) {
      s.setSoTimeout(5_000);
      for (String host :
          List.of(
              "localhost",
              "LOCALHOST:8080",
              "wallet.localhost",
              "127.0.0.1:1",
              "10.1.2.3",
              "[::1]:8080",
              "bbf.example.com:443")) {
        send(s, "GET /v1/status HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        assertEquals("HTTP/1.1 200 OK", readHead(s), host);
      }
      for (String host : List.of("evil.example", "evil.example:8080", "localhost.evil.example")) {
        send(s, "GET /v1/status HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        String refused = readResponse(s);
        assertTrue(refused.startsWith("HTTP/1.1 421 Misdirected Request"), host + ": " + refused);
        assertTrue(refused.contains("\"host_not_allowed\""), refused);
      }
    }
  }

  private static String readHead(Socket s) throws IOException {
    return readResponse(s).split("\r\n")[0];
  }

  /** Reads one response with a Content-Length body off a keep-alive stream. */
  private static String readResponse(Socket s) throws IOException {
    return readResponse(s.getInputStream());
  }

  /** As {@link #readResponse(Socket)} from {@code in} (buffered, for the load test's rate). */
  private static String readResponse(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (head.indexOf("\r\n\r\n") < 0) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed mid-response: " + head);
      }
      head.append((char) b);
    }
    String lower = head.toString().toLowerCase(java.util.Locale.ROOT);
    int at = lower.indexOf("content-length: ");
    int length = Integer.parseInt(lower.substring(at + 16, lower.indexOf("\r\n", at)).trim());
    return head + new String(in.readNBytes(length), StandardCharsets.US_ASCII);
  }
}
