package io.bbfindex.app.route;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A feature's part of the OpenAPI 3.1 document: its {@code paths} (the operations of its routes)
 * and the {@code components/schemas} they refer to, kept as a JSON resource next to the feature.
 */
public final class OpenApiFragment {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final ObjectNode paths;
  private final ObjectNode schemas;

  private OpenApiFragment(ObjectNode paths, ObjectNode schemas) {
    this.paths = paths;
    this.schemas = schemas;
  }

  /** A fragment that documents nothing (a feature without routes). */
  public static OpenApiFragment empty() {
    return new OpenApiFragment(MAPPER.createObjectNode(), MAPPER.createObjectNode());
  }

  /**
   * The resource {@code name} next to {@code owner}, with each key of {@code replacements} in its
   * text replaced by its value (the esplora routes' prefix).
   */
  public static OpenApiFragment load(
      Class<?> owner, String name, Map<String, String> replacements) {
    ObjectNode doc = read(owner, name, replacements);
    JsonNode components = doc.get("components");
    return new OpenApiFragment(
        object(doc, "paths"),
        components instanceof ObjectNode c ? object(c, "schemas") : MAPPER.createObjectNode());
  }

  public static OpenApiFragment load(Class<?> owner, String name) {
    return load(owner, name, Map.of());
  }

  static ObjectNode read(Class<?> owner, String name, Map<String, String> replacements) {
    try (InputStream in = owner.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(
            "the OpenAPI resource " + name + " of " + owner.getName() + " is missing from the jar");
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (Map.Entry<String, String> r : replacements.entrySet()) {
        text = text.replace(r.getKey(), r.getValue());
      }
      return (ObjectNode) MAPPER.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ObjectNode object(ObjectNode parent, String field) {
    JsonNode node = parent.get(field);
    return node instanceof ObjectNode o ? o : MAPPER.createObjectNode();
  }

  ObjectNode paths() {
    return paths;
  }

  ObjectNode schemas() {
    return schemas;
  }
}
