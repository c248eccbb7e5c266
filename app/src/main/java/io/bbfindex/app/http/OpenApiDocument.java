package io.bbfindex.app.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /v1/openapi.json}: the OpenAPI 3.1 document of every route, kept as a resource next to
 * this class; the esplora routes' paths carry the prefix the server was started with.
 */
final class OpenApiDocument {
  static final String RESOURCE = "openapi.json";
  private static final String PREFIX_MARK = "/__ESPLORA__/";

  private OpenApiDocument() {}

  static byte[] render(String esploraPrefix) {
    try (InputStream in = OpenApiDocument.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the " + RESOURCE + " resource is missing from the jar");
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return text.replace(PREFIX_MARK, esploraPrefix + "/").getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
