package io.bbfindex.app.route;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A path pattern as OpenAPI writes it: segments that are literal text or a parameter ({@code
 * {txid}}), a parameter matching one whole segment, possibly empty (so {@code /v1/tx/} reaches the
 * route, which says what is wrong with its id, rather than a 404). A last parameter written {@code
 * {txid+}} takes the rest of the path, slashes included, so that {@code /v1/tx/a/b} is the lookup's
 * 400 naming what is wrong with the id; it is tried after every other pattern ({@code
 * /v1/tx/{txid}/hex} first), and documented as {@code {txid}}.
 */
final class PathPattern {
  private final String text;

  /** Each segment's literal text, or null for a parameter. */
  private final @Nullable String[] literals;

  private final int parameters;

  /** Whether the last parameter takes the rest of the path. */
  private final boolean rest;

  /**
   * The text before the first parameter ({@code /v1/tx/} of {@code /v1/tx/{txid}/raw}): a path that
   * does not start with it is turned away by one comparison.
   */
  private final String leading;

  private PathPattern(String text, @Nullable String[] literals, int parameters, boolean rest) {
    this.text = text;
    this.literals = literals;
    this.parameters = parameters;
    this.rest = rest;
    int brace = text.indexOf('{');
    this.leading = brace < 0 ? text : text.substring(0, brace);
  }

  static PathPattern of(String text) {
    if (text == null || !text.startsWith("/")) {
      throw new IllegalArgumentException("a path pattern starts with '/': " + text);
    }
    String[] segments = text.substring(1).split("/", -1);
    @Nullable String[] literals = new String[segments.length];
    int parameters = 0;
    boolean rest = false;
    for (int i = 0; i < segments.length; i++) {
      String s = segments[i];
      if (s.startsWith("{") && s.endsWith("+}") && s.length() > 3 && i == segments.length - 1) {
        parameters++;
        rest = true;
      } else if (s.startsWith("{") && s.endsWith("}") && s.length() > 2 && !s.contains("+")) {
        parameters++;
      } else if (s.contains("{") || s.contains("}")) {
        throw new IllegalArgumentException("a parameter is a whole segment: " + text);
      } else {
        literals[i] = s;
      }
    }
    return new PathPattern(text, literals, parameters, rest);
  }

  String text() {
    return text;
  }

  /** The pattern as the OpenAPI document writes it: {@code {txid+}} as {@code {txid}}. */
  String documented() {
    return rest ? text.substring(0, text.length() - 2) + "}" : text;
  }

  /** Whether the last parameter takes the rest of the path (such patterns are tried last). */
  boolean takesRest() {
    return rest;
  }

  /** How many parameters: the fewer, the more specific ({@code /v1/tx/lookup} over {txid}). */
  int parameters() {
    return parameters;
  }

  /**
   * How many segments a path this pattern matches has: exactly this many, or for a pattern that
   * takes the rest of the path, at least this many.
   */
  int segments() {
    return literals.length;
  }

  /** The number of segments of {@code path} (a leading '/' assumed): one more than its slashes. */
  static int segmentsOf(String path) {
    int n = 0;
    for (int i = 0; i < path.length(); i++) {
      if (path.charAt(i) == '/') {
        n++;
      }
    }
    return n;
  }

  /**
   * The parameters' values if {@code path} matches, else null. Runs for every request of a route
   * with parameters, against each candidate pattern in turn, so a miss allocates nothing: the
   * segments are checked first and the values cut out only once the whole path matched.
   */
  @Nullable List<String> match(String path) {
    if (path.isEmpty() || path.charAt(0) != '/' || !path.startsWith(leading)) {
      return null;
    }
    if (!matchesSegments(path)) {
      return null;
    }
    if (parameters == 0) {
      return List.of();
    }
    List<String> values = new ArrayList<>(parameters);
    int at = 1;
    for (int i = 0; i < literals.length; i++) {
      int end = i == literals.length - 1 ? path.length() : path.indexOf('/', at);
      if (literals[i] == null) {
        values.add(path.substring(at, end));
      }
      at = end + 1;
    }
    return values;
  }

  /** Whether {@code path} has this pattern's segments: the count, and each literal's text. */
  private boolean matchesSegments(String path) {
    int at = 1; // after the leading '/'
    for (int i = 0; i < literals.length; i++) {
      boolean last = i == literals.length - 1;
      int end = last && rest ? -1 : path.indexOf('/', at);
      if (last != (end < 0)) {
        return false; // more or fewer segments
      }
      if (last) {
        end = path.length();
      }
      String literal = literals[i];
      if (literal != null && (literal.length() != end - at || !path.startsWith(literal, at))) {
        return false;
      }
      at = end + 1;
    }
    return true;
  }
}
