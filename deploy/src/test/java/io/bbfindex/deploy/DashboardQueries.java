package io.bbfindex.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The queries of the shipped Grafana dashboard: every target's {@code expr} with Grafana's
 * variables replaced as Grafana would for "all instances" ({@code $instance} is a regex) and a rate
 * window that fits the test's 1 s scrape interval.
 */
record DashboardQueries(List<Query> queries, String instanceVariableQuery) {

  /** One target of one panel. */
  record Query(String panel, String expr) {
    /** Whether the query needs the series of {@code serve --follow}. */
    boolean needsFollow() {
      return expr.contains("bbf_follow_");
    }
  }

  static DashboardQueries load(Path dashboard, String rateWindow) throws IOException {
    JsonNode root = new ObjectMapper().readTree(dashboard.toFile());
    List<Query> out = new ArrayList<>();
    for (JsonNode panel : root.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        String expr =
            target
                .path("expr")
                .asText()
                .replace("$__rate_interval", rateWindow)
                .replace("$instance", ".+");
        out.add(new Query(panel.path("title").asText(), expr));
      }
    }
    String variable = "";
    for (JsonNode v : root.path("templating").path("list")) {
      if (v.path("name").asText().equals("instance")) {
        variable = v.path("query").asText();
      }
    }
    return new DashboardQueries(out, variable);
  }
}
