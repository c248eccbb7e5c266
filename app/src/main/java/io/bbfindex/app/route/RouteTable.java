package io.bbfindex.app.route;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Every route a server serves, from the features it runs, and what follows from them: which route a
 * request goes to, the 404 for a path no route serves, the 405 (with {@code Allow}, {@code HEAD}
 * beside every {@code GET}) for a method a path's routes do not accept, and {@code GET
 * /v1/openapi.json}, the OpenAPI document of exactly these routes.
 *
 * <p>A path belongs to the most specific pattern that matches it (the fewest parameters: {@code
 * /v1/tx/lookup} before {@code /v1/tx/{txid}}; one that takes the rest of the path last); that
 * pattern's routes decide between answer and 405. Immutable, so one table serves every event loop.
 */
public final class RouteTable {
  /** The route of the OpenAPI document itself. */
  public static final String OPENAPI_PATH = "/v1/openapi.json";

  /** The {@code route} tag of requests no route serves. */
  public static final String OTHER_TAG = "other";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The routes without parameters, by path: most requests are resolved by one hash lookup. */
  private final Map<String, Endpoint> literal = new HashMap<>();

  /**
   * The patterns with parameters that match paths of exactly {@code i} segments, at index {@code
   * i}, fewest parameters first. WHY by segment count: every lookup ({@code /v1/tx/{txid}}) used to
   * be tried against every pattern of every feature (the Esplora routes alone are a score) before
   * its own; a path's segment count leaves a handful.
   */
  private final List<List<Endpoint>> bySegments = new ArrayList<>();

  /** The patterns whose last parameter takes the rest of the path, fewest parameters first. */
  private final List<Endpoint> takingRest = new ArrayList<>();

  private final List<Route> routes = new ArrayList<>();
  private final List<Namespace> namespaces = new ArrayList<>();
  private final byte[] openApi;
  private final String routeList;

  /** The routes of one pattern, by method. */
  private record Endpoint(PathPattern pattern, Map<HttpMethod, Route> byMethod, String allow) {}

  /** Where a request goes: a route and its parameters, or a refusal the table answers itself. */
  public sealed interface Resolution {
    /** The {@code route} tag the request is counted under. */
    String tag();
  }

  /** The request goes to {@code route}. */
  public record Found(Route route, List<String> params) implements Resolution {
    @Override
    public String tag() {
      return route.tag();
    }
  }

  /** The table refuses the request: 404 or 405. */
  public record Refused(
      String tag, Refusal refusal, @Nullable Namespace namespace, @Nullable String allow)
      implements Resolution {
    /** The answer, in the namespace's words if the path is in one, with {@code Allow} on a 405. */
    public FullHttpResponse response() {
      FullHttpResponse r =
          namespace == null ? Responses.error(refusal) : namespace.refuse().apply(refusal);
      if (allow != null) {
        r.headers().set(HttpHeaderNames.ALLOW, allow);
      }
      return r;
    }
  }

  private RouteTable(List<Feature> features) {
    ObjectNode doc = OpenApiFragment.read(RouteTable.class, "openapi.json", Map.of());
    List<Route> all = new ArrayList<>();
    all.add(Route.get(OPENAPI_PATH, "openapi", request -> openApiResponse()));
    for (Feature f : features) {
      all.addAll(f.routes());
      namespaces.addAll(f.namespaces());
      merge(doc, f.openApi());
    }
    Map<String, Map<HttpMethod, Route>> byPattern = new LinkedHashMap<>();
    for (Route r : all) {
      Route before =
          byPattern.computeIfAbsent(r.pattern(), p -> new LinkedHashMap<>()).put(r.method(), r);
      if (before != null) {
        throw new IllegalArgumentException("two routes for " + r.method() + " " + r.pattern());
      }
      routes.add(r);
    }
    for (Map.Entry<String, Map<HttpMethod, Route>> e : byPattern.entrySet()) {
      PathPattern pattern = PathPattern.of(e.getKey());
      Endpoint endpoint =
          new Endpoint(pattern, Map.copyOf(e.getValue()), allow(e.getValue().keySet()));
      if (pattern.parameters() == 0) {
        literal.put(pattern.text(), endpoint);
      } else if (pattern.takesRest()) {
        takingRest.add(endpoint);
      } else {
        while (bySegments.size() <= pattern.segments()) {
          bySegments.add(new ArrayList<>());
        }
        bySegments.get(pattern.segments()).add(endpoint);
      }
    }
    Comparator<Endpoint> fewestParameters = Comparator.comparingInt(e -> e.pattern().parameters());
    bySegments.forEach(bucket -> bucket.sort(fewestParameters));
    takingRest.sort(fewestParameters);
    namespaces.sort(Comparator.comparingInt((Namespace n) -> n.prefix().length()).reversed());
    try {
      this.openApi = MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the OpenAPI document", e);
    }
    this.routeList = routeList();
  }

  /** The table of {@code features}' routes, plus {@code GET /v1/openapi.json}. */
  public static RouteTable of(List<Feature> features) {
    return new RouteTable(features);
  }

  /** Every route, in the order the features gave them (the OpenAPI document's first). */
  public List<Route> routes() {
    return List.copyOf(routes);
  }

  /** The {@code route} tags of every route and of the refusals. */
  public Set<String> tags() {
    Set<String> tags = new LinkedHashSet<>();
    routes.forEach(r -> tags.add(r.tag()));
    namespaces.forEach(n -> tags.add(n.tag()));
    tags.add(OTHER_TAG);
    return tags;
  }

  /** The OpenAPI document served at {@link #OPENAPI_PATH}. */
  public byte[] openApi() {
    return openApi.clone();
  }

  /** Where {@code method} on {@code path} (its query string cut off) goes. */
  public Resolution resolve(HttpMethod method, String path) {
    Endpoint endpoint = literal.get(path);
    List<String> params = List.of();
    if (endpoint == null) {
      int segments = PathPattern.segmentsOf(path);
      Match m =
          firstMatch(segments < bySegments.size() ? bySegments.get(segments) : List.of(), path);
      if (m == null) {
        m = firstMatch(takingRest, path);
      }
      if (m != null) {
        endpoint = m.endpoint();
        params = m.params();
      }
    }
    Route route = endpoint == null ? null : endpoint.byMethod().get(method);
    if (route != null) {
      return new Found(route, params);
    }
    Namespace namespace = namespaceOf(path); // only a refusal speaks in a namespace's words
    if (endpoint == null) {
      return new Refused(
          namespace == null ? OTHER_TAG : namespace.tag(),
          new Refusal(
              HttpResponseStatus.NOT_FOUND, "not_found", "no such route; routes: " + routeList),
          namespace,
          null);
    }
    // A 405 keeps the connection: the aggregator has already consumed the whole body, so the
    // stream is at a clean request boundary and closing would only cost the client a reconnect.
    Route any = endpoint.byMethod().values().iterator().next();
    String accepted =
        endpoint.byMethod().keySet().stream()
            .map(HttpMethod::name)
            .sorted()
            .collect(Collectors.joining(" or "));
    return new Refused(
        namespace == null ? any.tag() : namespace.tag(),
        new Refusal(
            HttpResponseStatus.METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "this route accepts " + accepted + " only"),
        namespace,
        endpoint.allow());
  }

  /** A pattern that matched, with its parameters' values. */
  private record Match(Endpoint endpoint, List<String> params) {}

  private static @Nullable Match firstMatch(List<Endpoint> endpoints, String path) {
    for (Endpoint e : endpoints) {
      List<String> matched = e.pattern().match(path);
      if (matched != null) {
        return new Match(e, matched);
      }
    }
    return null;
  }

  private @Nullable Namespace namespaceOf(String path) {
    for (Namespace n : namespaces) {
      if (n.covers(path)) {
        return n;
      }
    }
    return null;
  }

  private FullHttpResponse openApiResponse() {
    return Responses.response(
        HttpResponseStatus.OK, Responses.APPLICATION_JSON, Unpooled.wrappedBuffer(openApi));
  }

  /** {@code Allow}: the methods, with {@code HEAD} after {@code GET} (every GET answers HEAD). */
  private static String allow(Set<HttpMethod> methods) {
    List<String> names = new ArrayList<>();
    for (HttpMethod m : methods.stream().sorted(Comparator.comparing(HttpMethod::name)).toList()) {
      names.add(m.name());
      if (m.equals(HttpMethod.GET)) {
        names.add(HttpMethod.HEAD.name());
      }
    }
    return String.join(", ", names);
  }

  /** The routes a 404 lists: those outside a namespace, and each namespace's prefix. */
  private String routeList() {
    List<String> listed = new ArrayList<>();
    for (Route r : routes) {
      if (namespaceOf(r.pattern()) == null) {
        listed.add(r.method().name() + " " + PathPattern.of(r.pattern()).documented());
      }
    }
    for (Namespace n : namespaces) {
      if (routes.stream().anyMatch(r -> n.covers(r.pattern()))) {
        listed.add(n.prefix() + "...");
      }
    }
    return String.join(", ", listed) + " (each with its answers in GET " + OPENAPI_PATH + ")";
  }

  /** Adds a feature's paths and schemas; a schema two features share must be the same. */
  private static void merge(ObjectNode doc, OpenApiFragment fragment) {
    ObjectNode paths = doc.withObjectProperty("paths");
    fragment
        .paths()
        .properties()
        .forEach(
            e -> {
              if (paths.has(e.getKey())) {
                throw new IllegalArgumentException("two features document " + e.getKey());
              }
              paths.set(e.getKey(), e.getValue());
            });
    ObjectNode schemas = doc.withObjectProperty("components").withObjectProperty("schemas");
    fragment
        .schemas()
        .properties()
        .forEach(
            e -> {
              if (schemas.has(e.getKey()) && !schemas.get(e.getKey()).equals(e.getValue())) {
                throw new IllegalArgumentException(
                    "two features define schema " + e.getKey() + " differently");
              }
              schemas.set(e.getKey(), e.getValue());
            });
  }
}
