package io.bbfindex.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Prometheus' HTTP API ({@code /api/v1/...}) of a server on 127.0.0.1. */
final class PrometheusApi implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String base;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  PrometheusApi(String base) {
    this.base = base;
  }

  /** Whether {@code /-/ready} answers 200. */
  boolean ready() throws InterruptedException {
    try {
      return get("/-/ready").statusCode() == 200;
    } catch (IOException notYet) {
      return false;
    }
  }

  /**
   * An instant query: the whole answer ({@code status}, {@code data.result}, {@code error}), on
   * success or not (a bad expression is a 400 with a JSON body).
   */
  JsonNode query(String promql) throws IOException, InterruptedException {
    return json("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
  }

  JsonNode json(String pathAndQuery) throws IOException, InterruptedException {
    return JSON.readTree(get(pathAndQuery).body());
  }

  private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + pathAndQuery))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    http.close();
  }
}
