package io.bbfindex.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.benchmarks.http.WrkRun;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scale-out as the README describes it: three stateless {@code serve} replicas (each its own JVM)
 * of one immutable filter store, behind a real HAProxy running the shipped {@code
 * deploy/haproxy/haproxy.cfg} with {@code /readyz} health checks. One replica is killed with
 * SIGKILL in the middle of a wrk run of present-txid lookups: fewer than 0.1 % of the requests may
 * fail (a socket error or any status but 200), and HAProxy must have taken the dead replica out.
 */
class HaproxyReplicasTest {

  private static final int REPLICAS = 3;
  private static final int LOAD_SECONDS = 12;
  private static final int KILL_AFTER_MS = 4_000;

  @TempDir Path tmp;

  @Test
  void killingOneOfThreeReplicasUnderLoadFailsFewerThanOneRequestInAThousand() throws Exception {
    Tool haproxy = Tool.require("haproxy");
    Tool wrk = Tool.require("wrk");
    DemoStore store = DemoStore.extract(tmp);

    List<ServerProcess> replicas = startReplicas(store);
    Process lb = null;
    try {
      int lbPort = Deploy.freePort();
      int statsPort = Deploy.freePort();
      Map<String, String> env = new HashMap<>();
      env.put("BBF_LISTEN", "127.0.0.1:" + lbPort);
      env.put("BBF_STATS", "127.0.0.1:" + statsPort);
      for (int i = 0; i < REPLICAS; i++) {
        env.put("BBF_REPLICA_" + (i + 1), URI.create(replicas.get(i).baseUrl()).getAuthority());
      }
      Path cfg = Deploy.dir().resolve("haproxy/haproxy.cfg");
      ProcessBuilder check =
          new ProcessBuilder(haproxy.path().toString(), "-c", "-f", cfg.toString());
      check.environment().putAll(env);
      Process c = check.redirectErrorStream(true).start();
      String checkOut = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, c.waitFor(), "haproxy -c on the shipped configuration:\n" + checkOut);

      ProcessBuilder run =
          new ProcessBuilder(haproxy.path().toString(), "-db", "-f", cfg.toString());
      run.environment().putAll(env);
      lb =
          run.redirectErrorStream(true).redirectOutput(tmp.resolve("haproxy.log").toFile()).start();
      String base = "http://127.0.0.1:" + lbPort;
      String stats = "http://127.0.0.1:" + statsPort + "/stats;csv";
      awaitUp(stats, REPLICAS, lb);

      Path requests = tmp.resolve("present.txt");
      Files.write(requests, store.txids().stream().map(t -> "/v1/tx/" + t).toList());
      Path script = WrkRun.writeScript(tmp);
      ExecutorService pool = Executors.newSingleThreadExecutor();
      Future<WrkRun> load =
          pool.submit(
              () ->
                  WrkRun.run(wrk.path(), script, base, requests, null, false, 2, 16, LOAD_SECONDS));
      Thread.sleep(KILL_AFTER_MS);
      ServerProcess victim = replicas.get(1);
      ProcessHandle handle = ProcessHandle.of(victim.pid()).orElseThrow();
      assertTrue(handle.isAlive(), "the replica to kill runs under load");
      handle.destroyForcibly(); // SIGKILL: no shutdown hook, connections reset mid-request
      handle.onExit().get(10, TimeUnit.SECONDS);
      WrkRun r = load.get(LOAD_SECONDS + 30, TimeUnit.SECONDS);
      pool.shutdown();

      long failed = r.non2xx() + r.socketErrors();
      double pct = 100.0 * failed / r.requests();
      System.out.printf(
          Locale.ROOT,
          "haproxy over %d replicas, replica2 SIGKILLed after %d ms of %d s of wrk (2 threads, 16"
              + " connections): %,d requests, %,.0f req/s, p99 %.2f ms, failed %d (non-2xx %d,"
              + " socket errors %d) = %.4f %%%n",
          REPLICAS,
          KILL_AFTER_MS,
          LOAD_SECONDS,
          r.requests(),
          r.requestsPerSecond(),
          r.p99Millis(),
          failed,
          r.non2xx(),
          r.socketErrors(),
          pct);
      assertTrue(r.requests() > 1_000, "wrk completed only " + r.requests() + " requests");
      assertTrue(
          failed * 1_000 < r.requests(),
          failed + " of " + r.requests() + " requests failed (" + pct + " %): at least 0.1 %");

      Map<String, String> status = serverStatus(stats);
      assertTrue(status.get("replica2").startsWith("DOWN"), "the killed replica is out: " + status);
      assertEquals("UP", status.get("replica1"), status.toString());
      assertEquals("UP", status.get("replica3"), status.toString());
      HttpResponse<String> after = get(base + "/v1/tx/" + store.txids().getFirst());
      assertEquals(200, after.statusCode(), "the two replicas left still answer");
    } finally {
      if (lb != null) {
        lb.destroy();
        lb.waitFor(10, TimeUnit.SECONDS);
      }
      for (ServerProcess s : replicas) {
        s.close();
      }
    }
  }

  /**
   * The replicas, each with its own scratch directory, started one after the other: a starting
   * server locks the store while it verifies it, and a second one starting in that moment exits
   * ("another build is writing this filter store"); under systemd, Restart=on-failure retries it.
   */
  private List<ServerProcess> startReplicas(DemoStore store) throws Exception {
    List<ServerProcess> started = new ArrayList<>();
    try {
      for (int i = 1; i <= REPLICAS; i++) {
        started.add(store.serve(tmp.resolve("work-" + i), tmp.resolve("replica" + i + ".log")));
      }
      return started;
    } catch (Exception e) {
      for (ServerProcess s : started) {
        s.close();
      }
      throw e;
    }
  }

  /** Waits until HAProxy's health checks see {@code n} replicas UP. */
  private void awaitUp(String statsCsv, int n, Process lb) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Map<String, String> status = Map.of();
    while (System.nanoTime() < deadline) {
      assertTrue(lb.isAlive(), () -> "haproxy exited: " + readLog(tmp.resolve("haproxy.log")));
      try {
        status = serverStatus(statsCsv);
        if (status.values().stream().filter("UP"::equals).count() == n) {
          return;
        }
      } catch (IOException notYet) {
        // haproxy is still starting
      }
      Thread.sleep(100);
    }
    throw new AssertionError("HAProxy did not see " + n + " replicas UP within 30 s: " + status);
  }

  private static String readLog(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Server name to status ("UP", "DOWN", "DOWN 1/2"...) from HAProxy's stats CSV. */
  private static Map<String, String> serverStatus(String statsCsv)
      throws IOException, InterruptedException {
    HttpResponse<String> r = get(statsCsv);
    if (r.statusCode() != 200) {
      throw new IOException("stats answered " + r.statusCode());
    }
    List<String> lines = r.body().lines().toList();
    List<String> header = List.of(lines.getFirst().replaceFirst("^# ", "").split(",", -1));
    int px = header.indexOf("pxname");
    int sv = header.indexOf("svname");
    int st = header.indexOf("status");
    Map<String, String> status = new HashMap<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",", -1);
      if (f.length > st && f[px].equals("bbf_replicas") && f[sv].startsWith("replica")) {
        status.put(f[sv], f[st]);
      }
    }
    return status;
  }

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    try (HttpClient client =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
      return client.send(
          HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }
}
