package io.bbfindex.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.follow.testnode.TestNodes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped dashboard and alert rules on a real Prometheus (Debian's) scraping real bbf-index
 * servers on 127.0.0.1: one over the demo's data directory and, with {@code $BITCOIND}, one
 * following a regtest node that is being mined, so the follow panels have data too. {@code
 * promtool} accepts the rules; every dashboard target's expression evaluates without error through
 * the HTTP query API and returns series where its metrics exist; every alert rule evaluates healthy
 * in the running Prometheus, and the "down" alert goes pending when a server is killed.
 */
class PrometheusDashboardTest {

  private static final String RULES = "prometheus/bbf-index-alerts.yml";
  private static final String DASHBOARD = "grafana/bbf-index-dashboard.json";
  private static final int TRAFFIC_SECONDS = 10;

  @TempDir Path tmp;

  @Test
  void rulesPassPromtoolAndEveryDashboardQueryEvaluatesAgainstRealServers() throws Exception {
    Tool promtool = Tool.require("promtool");
    Tool prometheus = Tool.require("prometheus");
    Path rules = Deploy.dir().resolve(RULES);
    Tool.Run check = promtool.run("check", "rules", rules.toString());
    assertEquals(0, check.exit(), check.output());
    assertTrue(check.output().contains("SUCCESS"), check.output());

    DemoStore store = DemoStore.extract(tmp.resolve("demo"));
    RegtestNode node = followedNode();
    try (ServerProcess demo = store.serve(tmp.resolve("demo-work"), tmp.resolve("demo.log"));
        ServerProcess follow = node == null ? null : followServer(node)) {
      List<String> targets = new ArrayList<>(List.of(authority(demo)));
      if (follow != null) {
        targets.add(authority(follow));
      }
      int port = Deploy.freePort();
      Path config = writeConfig(rules, targets);
      Tool.Run configCheck = promtool.run("check", "config", config.toString());
      assertEquals(0, configCheck.exit(), configCheck.output());
      Tool.Run example =
          promtool.run(
              "check", "config", Deploy.dir().resolve("prometheus/prometheus.yml").toString());
      assertEquals(0, example.exit(), "the shipped example configuration: " + example.output());
      Process prom =
          new ProcessBuilder(
                  prometheus.path().toString(),
                  "--config.file=" + config,
                  "--storage.tsdb.path=" + tmp.resolve("tsdb"),
                  "--web.listen-address=127.0.0.1:" + port,
                  "--log.level=warn")
              .redirectErrorStream(true)
              .redirectOutput(tmp.resolve("prometheus.log").toFile())
              .start();
      try (PrometheusApi api = new PrometheusApi("http://127.0.0.1:" + port)) {
        awaitReady(api, prom);
        traffic(store, demo, follow, node);

        DashboardQueries dashboard = DashboardQueries.load(Deploy.dir().resolve(DASHBOARD), "20s");
        List<String> problems = new ArrayList<>();
        int withData = 0;
        for (DashboardQueries.Query q : dashboard.queries()) {
          JsonNode r = api.query(q.expr());
          if (!"success".equals(r.path("status").asText())) {
            problems.add(q.panel() + ": " + q.expr() + " -> " + r.path("error").asText());
          } else if (r.path("data").path("result").isEmpty()) {
            if (!q.needsFollow() || follow != null) {
              problems.add(q.panel() + ": " + q.expr() + " -> no series");
            }
          } else {
            withData++;
          }
        }
        System.out.printf(
            "dashboard: %d queries, %d with data, %d problems (%s)%n",
            dashboard.queries().size(),
            withData,
            problems.size(),
            follow == null
                ? "no followed node: follow panels only checked to evaluate"
                : "demo + followed node");
        assertEquals(List.of(), problems, "dashboard queries that failed or returned nothing");
        assertTrue(dashboard.queries().size() >= 20, "the dashboard lost its panels");

        String variable = dashboard.instanceVariableQuery();
        assertTrue(variable.startsWith("label_values(bbf_build_info, instance)"), variable);
        JsonNode instances = api.json("/api/v1/label/instance/values?match[]=bbf_build_info");
        assertEquals(targets.size(), instances.path("data").size(), instances.toString());

        assertRulesHealthy(api, rules);

        demo.close(); // a server gone: its "down" alert must go pending
        String down = authority(demo);
        assertTrue(
            awaitAlert(api, "BbfIndexDown", down), "BbfIndexDown did not go pending for " + down);
      } finally {
        prom.destroy();
        prom.waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      if (node != null) {
        node.close();
      }
    }
  }

  /** A running regtest node with a mined chain, or null without {@code $BITCOIND} (not on CI). */
  private static RegtestNode followedNode() throws Exception {
    if (RegtestNode.binary(RegtestNode.CURRENT).isEmpty() && !"true".equals(System.getenv("CI"))) {
      System.out.println(
          "NOTE: BITCOIND is not set: no followed node, the follow panels are only evaluated");
      return null;
    }
    RegtestNode node = TestNodes.start(true, RegtestNode.CURRENT);
    node.mine(101);
    node.stop(); // Core writes its block index at shutdown: the snapshot needs it
    node.restart();
    node.send("bech32", 1.0);
    return node;
  }

  private ServerProcess followServer(RegtestNode node) throws Exception {
    return Deploy.followServer(node, tmp, "follow");
  }

  private Path writeConfig(Path rules, List<String> targets) throws java.io.IOException {
    String yaml =
        """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files:
          - "%s"
        scrape_configs:
          - job_name: bbf-index
            static_configs:
              - targets: [%s]
        """
            .formatted(
                rules,
                targets.stream().map(t -> "\"" + t + "\"").collect(Collectors.joining(", ")));
    return Files.writeString(tmp.resolve("prometheus.yml"), yaml);
  }

  private static void awaitReady(PrometheusApi api, Process prom) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!api.ready()) {
      assertTrue(prom.isAlive(), "prometheus exited: see its log");
      assertTrue(System.nanoTime() < deadline, "prometheus not ready within 30 s");
      Thread.sleep(100);
    }
  }

  /**
   * {@value #TRAFFIC_SECONDS} s of lookups (present, absent, batches), status and filter listings
   * against every server, while the followed node mines a block and takes a transaction every 2 s:
   * the rates the dashboard plots have samples in their window.
   */
  private static void traffic(
      DemoStore store, ServerProcess demo, ServerProcess follow, RegtestNode node)
      throws Exception {
    Random rnd = new Random(15);
    HexFormat hex = HexFormat.of();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(TRAFFIC_SECONDS);
    long nextBlock = 0;
    try (HttpClient http = HttpClient.newHttpClient()) {
      while (System.nanoTime() < end) {
        for (ServerProcess s : follow == null ? List.of(demo) : List.of(demo, follow)) {
          String absent = hex.formatHex(randomBytes(rnd));
          String present = store.txids().get(rnd.nextInt(store.txids().size()));
          for (String path :
              List.of("/v1/tx/" + present, "/v1/tx/" + absent, "/v1/status", "/v1/filters")) {
            send(http, HttpRequest.newBuilder(URI.create(s.baseUrl() + path)).build());
          }
          send(
              http,
              HttpRequest.newBuilder(URI.create(s.baseUrl() + "/v1/tx/lookup"))
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "[\"" + present + "\",\"" + absent + "\"]"))
                  .build());
        }
        if (node != null && System.nanoTime() > nextBlock) {
          node.send("bech32", 0.1);
          node.mine(1);
          nextBlock = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        }
        Thread.sleep(20);
      }
    }
  }

  private static byte[] randomBytes(Random rnd) {
    byte[] b = new byte[32];
    rnd.nextBytes(b);
    return b;
  }

  private static void send(HttpClient http, HttpRequest request) throws Exception {
    int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    assertTrue(status == 200 || status == 404, request.uri() + " answered " + status);
  }

  /** Every rule of the file is loaded and has been evaluated without error. */
  private static void assertRulesHealthy(PrometheusApi api, Path rules) throws Exception {
    long expected =
        Files.readAllLines(rules).stream().filter(l -> l.strip().startsWith("- alert:")).count();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    List<String> unhealthy = new ArrayList<>();
    long evaluated = 0;
    while (System.nanoTime() < deadline) {
      unhealthy.clear();
      evaluated = 0;
      for (JsonNode group : api.json("/api/v1/rules").path("data").path("groups")) {
        for (JsonNode rule : group.path("rules")) {
          if (!"ok".equals(rule.path("health").asText())) {
            unhealthy.add(rule.path("name").asText() + ": " + rule.path("lastError").asText());
          } else {
            evaluated++;
          }
        }
      }
      if (evaluated == expected && unhealthy.isEmpty()) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(
        evaluated + " of " + expected + " rules evaluated healthy; unhealthy: " + unhealthy);
  }

  private static boolean awaitAlert(PrometheusApi api, String name, String instance)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      for (JsonNode a : api.json("/api/v1/alerts").path("data").path("alerts")) {
        if (a.path("labels").path("alertname").asText().equals(name)
            && a.path("labels").path("instance").asText().equals(instance)) {
          return true;
        }
      }
      Thread.sleep(250);
    }
    return false;
  }

  private static String authority(ServerProcess s) {
    return URI.create(s.baseUrl()).getAuthority();
  }
}
