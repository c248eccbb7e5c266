package io.bbfindex.readme;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** GETs against a server on 127.0.0.1, answers as status and JSON. */
final class Http {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private Http() {}

  record Answer(int status, JsonNode body) {}

  static Answer get(String url) throws IOException, InterruptedException {
    HttpResponse<String> r =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body;
    try {
      body = JSON.readTree(r.body());
    } catch (IOException e) {
      body = JSON.getNodeFactory().textNode(r.body());
    }
    return new Answer(r.statusCode(), body);
  }
}
