package io.bbfindex.app.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A JDK {@link HttpClient} over a running server, with JSON and Prometheus-text helpers. */
public final class ApiClient {
  public static final ObjectMapper JSON = new ObjectMapper();

  /** One answer: status, the raw response and its body parsed as JSON when it is JSON. */
  public record Answer(int status, HttpResponse<String> raw) {
    public JsonNode json() {
      try {
        return JSON.readTree(raw.body());
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON (status " + status + "): " + raw.body(), e);
      }
    }

    public String body() {
      return raw.body();
    }

    public String header(String name) {
      return raw.headers().firstValue(name).orElse(null);
    }
  }

  /**
   * One request and its answer, kept for {@link OpenApiContract} (bytes bodies as ISO-8859-1 text).
   */
  public record Exchange(String method, String path, int status, String contentType, String body) {}

  private final List<Exchange> recorded = java.util.Collections.synchronizedList(new ArrayList<>());

  private final String base;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private final boolean recording;

  public ApiClient(String base) {
    this(base, true);
  }

  private ApiClient(String base, boolean recording) {
    this.base = base;
    this.recording = recording;
  }

  /**
   * A client that keeps no {@link #recorded()} exchanges: for sweeps of many thousand requests,
   * whose contract a recorded sample checks. Thread-safe; its HTTP/1.1 connections are kept alive.
   */
  public static ApiClient unrecorded(String base) {
    return new ApiClient(base, false);
  }

  public String base() {
    return base;
  }

  public Answer get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  /** A GET whose body is kept as bytes (raw transactions and blocks). */
  public HttpResponse<byte[]> getBytes(String path) {
    return sendForBytes(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  public Answer post(String path, String body) {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  /** A POST of raw bytes with {@code contentType}, whose answer is kept as bytes. */
  public HttpResponse<byte[]> postBytes(String path, String contentType, byte[] body) {
    return sendForBytes(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  /** Sends; the answer's body is kept as bytes (and recorded as ISO-8859-1 text). */
  private HttpResponse<byte[]> sendForBytes(HttpRequest.Builder b) {
    try {
      HttpResponse<byte[]> r =
          http.send(
              b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
      record(r, new String(r.body(), java.nio.charset.StandardCharsets.ISO_8859_1));
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public Answer method(String method, String path) {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .method(method, HttpRequest.BodyPublishers.noBody()));
  }

  /** Every exchange so far, in order. */
  public List<Exchange> recorded() {
    synchronized (recorded) {
      return List.copyOf(recorded);
    }
  }

  private void record(HttpResponse<?> r, String body) {
    if (!recording) {
      return;
    }
    recorded.add(
        new Exchange(
            r.request().method(),
            r.uri().getRawPath(),
            r.statusCode(),
            r.headers().firstValue("content-type").orElse(null),
            body));
  }

  private Answer send(HttpRequest.Builder b) {
    try {
      HttpResponse<String> r =
          http.send(
              b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      record(r, r.body());
      return new Answer(r.statusCode(), r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The value of one sample in {@code /metrics}, e.g. {@code metric("bbf_lookups_total",
   * Map.of("kind", "tx", "outcome", "confirmed"))}; fails when the sample is missing.
   */
  public double metric(String name, Map<String, String> labels) {
    String text = get("/metrics").body();
    Pattern line =
        Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)$", Pattern.MULTILINE);
    Matcher m = line.matcher(text);
    while (m.find()) {
      String set = m.group(1) == null ? "" : m.group(1);
      boolean all =
          labels.entrySet().stream()
              .allMatch(e -> set.contains(e.getKey() + "=\"" + e.getValue() + "\""));
      if (all) {
        return Double.parseDouble(m.group(2));
      }
    }
    throw new AssertionError("no sample " + name + labels + " in /metrics:\n" + text);
  }

  public double metric(String name) {
    return metric(name, Map.of());
  }
}
