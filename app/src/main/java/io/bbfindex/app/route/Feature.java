package io.bbfindex.app.route;

import java.util.List;

/**
 * A part of the API that owns its routes: the route table is the union of the features a server
 * runs, and the OpenAPI document the union of their fragments. Adding a route touches only its
 * feature.
 */
public interface Feature {
  /** The routes this feature serves. */
  List<Route> routes();

  /** The OpenAPI paths (one operation per route) and schemas of those routes. */
  OpenApiFragment openApi();

  /**
   * Path prefixes this feature answers refusals under in its own style (esplora's plain text, or a
   * "this server has no such source" for a feature that is off); empty for the JSON default.
   */
  default List<Namespace> namespaces() {
    return List.of();
  }
}
