package io.bbfindex.app.route;

import io.netty.handler.codec.http.FullHttpResponse;
import java.util.function.Function;

/**
 * A path prefix whose refusals (no route for the path: 404; a route with other methods: 405, the
 * table adds {@code Allow}) a feature words itself.
 *
 * @param prefix the paths it covers: those that start with it and are longer
 * @param tag the {@code route} tag its refusals are counted under
 * @param refuse the answer to a refusal
 */
public record Namespace(String prefix, String tag, Function<Refusal, FullHttpResponse> refuse) {
  boolean covers(String path) {
    return path.startsWith(prefix) && path.length() > prefix.length();
  }
}
