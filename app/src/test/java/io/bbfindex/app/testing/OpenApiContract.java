package io.bbfindex.app.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * Checks recorded responses against the server's own {@code GET /v1/openapi.json} with a JSON
 * Schema 2020-12 validator (networknt): the path must be documented, the method and status too, the
 * content type must be one the operation declares, and a JSON (or plain-text) body must validate
 * against that content's schema.
 */
public final class OpenApiContract {
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private final JsonNode doc;
  private final List<Map.Entry<Pattern, String>> templates = new ArrayList<>();
  private final SchemaRegistry registry =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
  private final Map<String, Schema> schemas = new ConcurrentHashMap<>(); // sweeps check in parallel

  public OpenApiContract(String document) {
    this.doc = JSON.readTree(document);
    assertEquals("3.1.0", doc.get("openapi").asString(), "an OpenAPI 3.1 document");
    List<String> literal = new ArrayList<>();
    List<String> templated = new ArrayList<>();
    for (String path : doc.get("paths").propertyNames()) {
      (path.contains("{") ? templated : literal).add(path);
    }
    // literal paths first: /v1/tx/lookup is not /v1/tx/{txid}
    for (String path : literal) {
      templates.add(Map.entry(Pattern.compile(Pattern.quote(path)), path));
    }
    for (String path : templated) {
      templates.add(Map.entry(Pattern.compile(path.replaceAll("\\{[^}]+}", "[^/]+")), path));
    }
  }

  /** The contract of the server behind {@code api}. */
  public static OpenApiContract of(ApiClient api) {
    ApiClient.Answer a = api.get("/v1/openapi.json");
    assertEquals(200, a.status());
    return new OpenApiContract(a.body());
  }

  /** Checks every response {@code api} has recorded; returns how many were checked. */
  public int checkAll(ApiClient api) {
    List<ApiClient.Exchange> all = api.recorded();
    for (ApiClient.Exchange e : all) {
      check(e);
    }
    return all.size();
  }

  public void check(ApiClient.Exchange e) {
    String path = e.path().contains("?") ? e.path().substring(0, e.path().indexOf('?')) : e.path();
    String template =
        templates.stream()
            .filter(t -> t.getKey().matcher(path).matches())
            .map(Map.Entry::getValue)
            .findFirst()
            .orElse(null);
    String what = e.method() + " " + e.path() + " -> " + e.status();
    assertNotNull(template, what + ": the path is not in /v1/openapi.json");
    JsonNode operation = doc.get("paths").get(template).get(e.method().toLowerCase(Locale.ROOT));
    assertNotNull(operation, what + ": the method is not documented");
    JsonNode response = operation.get("responses").get(Integer.toString(e.status()));
    assertNotNull(response, what + ": the status is not documented");
    String type = e.contentType() == null ? "" : e.contentType().split(";")[0].trim();
    JsonNode content = response.get("content");
    assertNotNull(content, what + ": the response documents no content");
    JsonNode media = content.get(type);
    assertNotNull(media, what + ": content type " + type + " is not documented");
    JsonNode instance;
    if (type.equals("application/json")) {
      instance = JSON.readTree(e.body());
    } else if (type.equals("text/plain")) {
      instance = StringNode.valueOf(e.body());
    } else {
      return; // bytes: the declared type is all there is to check
    }
    String key = template + " " + e.method() + " " + e.status() + " " + type;
    Schema schema = schemas.computeIfAbsent(key, k -> schemaOf(media.get("schema")));
    List<Error> errors = schema.validate(instance);
    assertTrue(
        errors.isEmpty(),
        () ->
            what
                + ": the body does not match the documented schema: "
                + errors
                + "\nbody: "
                + e.body().substring(0, Math.min(500, e.body().length())));
  }

  /** The response schema at the root, with the document's components beside it for its $refs. */
  private Schema schemaOf(JsonNode schema) {
    ObjectNode root = (ObjectNode) schema.deepCopy();
    root.set("components", doc.get("components"));
    return registry.getSchema(root);
  }
}
