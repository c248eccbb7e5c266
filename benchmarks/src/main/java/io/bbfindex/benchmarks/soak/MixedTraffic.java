package io.bbfindex.benchmarks.soak;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Closed-loop clients (no think time, so the server runs at saturation) sending a fixed mix of
 * requests and checking every answer: a present txid must answer 200 with {@code "present":true}, a
 * random one 404, a batch of both 200 with both answers right, {@code /v1/status} and {@code
 * /metrics} 200. Anything else (another status, a wrong answer, a failed or timed-out connection)
 * is an error; the first few are kept for the report.
 */
final class MixedTraffic implements AutoCloseable {

  /** Share of each request kind, in percent (they add up to 100). */
  static final int PRESENT = 35;

  static final int ABSENT = 35;
  static final int BATCH = 15;
  static final int STATUS = 10;
  // the remaining 5 %: GET /metrics

  private static final int KEPT_ERRORS = 10;
  private static final int BATCH_IDS = 100;

  private final String base;
  private final List<String> present;
  private final HttpClient http;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final LongAdder requests = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final ConcurrentLinkedQueue<String> firstErrors = new ConcurrentLinkedQueue<>();
  private final List<Thread> clients = new ArrayList<>();

  private MixedTraffic(String base, List<String> present) {
    this.base = base;
    this.present = List.copyOf(present);
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  /** Starts {@code clients} client threads against {@code base}. */
  static MixedTraffic start(String base, List<String> present, int clients) {
    MixedTraffic t = new MixedTraffic(base, present);
    for (int i = 0; i < clients; i++) {
      long seed = 0x50ACL + i;
      Thread c = Thread.ofPlatform().name("soak-client-" + i).daemon().start(() -> t.loop(seed));
      t.clients.add(c);
    }
    return t;
  }

  long requests() {
    return requests.sum();
  }

  long errors() {
    return errors.sum();
  }

  List<String> firstErrors() {
    return List.copyOf(firstErrors);
  }

  private void loop(long seed) {
    Random rnd = new Random(seed);
    HexFormat hex = HexFormat.of();
    byte[] random = new byte[32];
    while (running.get()) {
      int kind = rnd.nextInt(100);
      rnd.nextBytes(random);
      String absent = hex.formatHex(random);
      String txid = present.get(rnd.nextInt(present.size()));
      String problem;
      try {
        if (kind < PRESENT) {
          problem = expect(get("/v1/tx/" + txid), 200, "\"present\":true");
        } else if (kind < PRESENT + ABSENT) {
          problem = expect(get("/v1/tx/" + absent), 404, "\"present\":false");
        } else if (kind < PRESENT + ABSENT + BATCH) {
          problem = batch(rnd, hex);
        } else if (kind < PRESENT + ABSENT + BATCH + STATUS) {
          problem = expect(get("/v1/status"), 200, "\"tipHeight\"");
        } else {
          problem = expect(get("/metrics"), 200, "bbf_lookups_total");
        }
      } catch (java.io.IOException e) {
        problem = "I/O: " + e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (!running.get()) {
        return; // a request cut by the end of the run is not an error of the server
      }
      requests.increment();
      if (problem != null) {
        errors.increment();
        if (firstErrors.size() < KEPT_ERRORS) {
          firstErrors.add(problem);
        }
      }
    }
  }

  /** A batch of present and random ids, alternating: every answer must match its id. */
  private @Nullable String batch(Random rnd, HexFormat hex)
      throws java.io.IOException, InterruptedException {
    StringBuilder body = new StringBuilder("[");
    byte[] random = new byte[32];
    for (int i = 0; i < BATCH_IDS; i++) {
      String id;
      if (i % 2 == 0) {
        id = present.get(rnd.nextInt(present.size()));
      } else {
        rnd.nextBytes(random);
        id = hex.formatHex(random);
      }
      body.append(i == 0 ? "" : ",").append('"').append(id).append('"');
    }
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/tx/lookup"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body.append(']').toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      return "batch: status " + r.statusCode();
    }
    int presentCount = count(r.body(), "\"present\":true");
    int absentCount = count(r.body(), "\"present\":false");
    if (presentCount != BATCH_IDS / 2 || absentCount != BATCH_IDS / 2) {
      return "batch: " + presentCount + " present and " + absentCount + " absent answers";
    }
    return null;
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + what.length())) {
      n++;
    }
    return n;
  }

  private HttpResponse<String> get(String path) throws java.io.IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Null when {@code r} has {@code status} and contains {@code marker}, else what is wrong. */
  private static @Nullable String expect(HttpResponse<String> r, int status, String marker) {
    if (r.statusCode() != status) {
      return r.request().uri().getPath() + ": status " + r.statusCode() + " instead of " + status;
    }
    if (!r.body().contains(marker)) {
      return r.request().uri().getPath() + ": no " + marker + " in " + abbreviate(r.body());
    }
    return null;
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }

  /** Stops the clients (a request in flight finishes or times out) and the HTTP client. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread c : clients) {
      c.join(Duration.ofSeconds(35));
    }
    http.close();
  }
}
