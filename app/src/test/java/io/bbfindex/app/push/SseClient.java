package io.bbfindex.app.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A Server-Sent Events client over the JDK's HTTP client: the stream's lines parsed into events
 * ({@code id}, {@code event}, {@code data}) on a thread of its own; comment lines counted.
 */
public final class SseClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  public record Event(long id, String kind, JsonNode data) {}

  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final AtomicInteger comments = new AtomicInteger();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final HttpResponse<Stream<String>> response;
  private final Thread reader;

  public SseClient(String url, String lastEventId) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).GET();
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId);
    }
    response = http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
    assertEquals(200, response.statusCode());
    assertEquals(
        "text/event-stream; charset=utf-8",
        response.headers().firstValue("content-type").orElse(""));
    reader = Thread.ofPlatform().daemon().name("sse-client").start(this::read);
  }

  private void read() {
    long id = -1;
    String kind = "message";
    StringBuilder data = new StringBuilder();
    try {
      for (String line : (Iterable<String>) response.body()::iterator) {
        if (line.startsWith(":")) {
          comments.incrementAndGet();
        } else if (line.startsWith("id: ")) {
          id = Long.parseLong(line.substring(4));
        } else if (line.startsWith("event: ")) {
          kind = line.substring(7);
        } else if (line.startsWith("data: ")) {
          data.append(line.substring(6));
        } else if (line.isEmpty() && !data.isEmpty()) {
          events.add(new Event(id, kind, JSON.readTree(data.toString())));
          kind = "message";
          data.setLength(0);
        }
      }
    } catch (Exception e) {
      // the stream ended (closed by the test or the server)
    }
  }

  /** The next event, within {@code timeout}. */
  public Event next(Duration timeout) throws InterruptedException {
    Event e = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    assertNotNull(e, "no event within " + timeout);
    return e;
  }

  /** The next event, which must be of {@code kind}. */
  public Event next(String kind, Duration timeout) throws InterruptedException {
    Event e = next(timeout);
    assertEquals(kind, e.kind(), e.toString());
    return e;
  }

  /** Whether no event arrives within {@code quiet}. */
  public boolean none(Duration quiet) throws InterruptedException {
    return events.poll(quiet.toMillis(), TimeUnit.MILLISECONDS) == null;
  }

  public int comments() {
    return comments.get();
  }

  @Override
  public void close() {
    response.body().close();
    http.shutdownNow();
    reader.interrupt();
  }
}
