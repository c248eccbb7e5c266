package io.bbfindex.app.wallet;

import java.nio.charset.StandardCharsets;

/** A wallet route's answer, ready for the HTTP layer to send. */
public record Reply(int status, String contentType, byte[] body) {
  public static final String JSON = "application/json";
  public static final String TEXT = "text/plain";
  public static final String OCTETS = "application/octet-stream";

  public static Reply ok(String contentType, byte[] body) {
    return new Reply(200, contentType, body);
  }

  public static Reply text(int status, String text) {
    return new Reply(status, TEXT, text.getBytes(StandardCharsets.UTF_8));
  }
}
