package io.bbfindex.app.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.route.Route;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The routes a server serves against the operations its {@code GET /v1/openapi.json} documents,
 * each as {@code METHOD path} (the path as OpenAPI writes it).
 */
public final class RoutesDocumented {
  private RoutesDocumented() {}

  /** Every route of {@code service}'s table. */
  public static Set<String> served(Service service) {
    Set<String> served = new TreeSet<>();
    for (Route r : service.routes().routes()) {
      served.add(r.method().name() + " " + r.documentedPath());
    }
    return served;
  }

  /** Every operation of the document {@code api} serves. */
  public static Set<String> documented(ApiClient api) {
    JsonNode doc = api.get("/v1/openapi.json").json();
    Set<String> documented = new TreeSet<>();
    doc.get("paths")
        .properties()
        .forEach(
            path ->
                path.getValue()
                    .fieldNames()
                    .forEachRemaining(
                        m -> documented.add(m.toUpperCase(Locale.ROOT) + " " + path.getKey())));
    return documented;
  }

  /** Asserts that the served routes and the documented operations are the same set. */
  public static void assertSame(Service service, ApiClient api) {
    Set<String> served = served(service);
    Set<String> documented = documented(api);
    Set<String> undocumented = new TreeSet<>(served);
    undocumented.removeAll(documented);
    Set<String> unserved = new TreeSet<>(documented);
    unserved.removeAll(served);
    assertTrue(
        undocumented.isEmpty(),
        "served but not in /v1/openapi.json (add the operation to the feature's OpenAPI fragment): "
            + undocumented);
    assertTrue(unserved.isEmpty(), "in /v1/openapi.json but served by no route: " + unserved);
  }
}
