package io.bbfindex.eth.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A real anvil dev node on 127.0.0.1 and a free port, for the tests: the binary the build installed
 * from npm ({@code -Dbbf.anvil}), started with the given options and killed on {@link #close()}.
 * Its own JSON-RPC client (the JDK's HttpClient) drives it, independent of the code under test.
 *
 * <p>Without the binary a test is skipped with the reason printed, except under {@code CI=true},
 * where it fails: CI must run these tests.
 */
public final class AnvilNode implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LISTENING = Pattern.compile("Listening on 127\\.0\\.0\\.1:(\\d+)");

  private final Process process;
  private final String url;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final StringBuilder output;
  private long nextId = 1;
  private List<String> accounts;

  /**
   * Next nonce per account: given explicitly, since anvil hands one nonce to two transfers of one
   * batch.
   */
  private long[] nonces;

  private AnvilNode(Process process, String url, StringBuilder output) {
    this.process = process;
    this.url = url;
    this.output = output;
  }

  /** The installed binary, or the test is skipped (failed under CI=true) with the reason. */
  public static Path binary() {
    String configured = System.getProperty("bbf.anvil");
    Path bin = configured == null ? null : Path.of(configured);
    if (bin == null || !Files.isExecutable(bin)) {
      String reason =
          "anvil is not installed ("
              + configured
              + "): the build installs it with npm (@foundry-rs/anvil-linux-amd64@1.7.1 into"
              + " eth-ingest/target/anvil); is npm on the PATH?";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(reason);
      }
      System.out.println("SKIPPED: " + reason);
      Assumptions.abort(reason);
    }
    return bin;
  }

  /** Starts anvil with {@code options} (e.g. {@code --no-mining}) and waits until it listens. */
  public static AnvilNode start(String... options) throws IOException {
    return startOnPort(0, options);
  }

  /**
   * Starts anvil on {@code listenPort} (0: a free one): another node where a stopped one listened,
   * as a client configured with its URL would meet it.
   */
  public static AnvilNode startOnPort(int listenPort, String... options) throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                binary().toString(),
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(listenPort)));
    cmd.addAll(List.of(options));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    StringBuilder output = new StringBuilder();
    CompletableFuture<Integer> port = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("anvil-output")
        .start(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  synchronized (output) {
                    if (output.length() < 20_000) {
                      output.append(line).append('\n');
                    }
                  }
                  Matcher m = LISTENING.matcher(line);
                  if (m.find()) {
                    port.complete(Integer.parseInt(m.group(1)));
                  }
                }
              } catch (IOException ignored) {
                // the process ended
              }
              port.completeExceptionally(new IOException("anvil exited before listening"));
            });
    try {
      int n = port.get(30, TimeUnit.SECONDS);
      return new AnvilNode(p, "http://127.0.0.1:" + n, output);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new IOException("anvil did not start: " + e.getMessage() + "\n" + output, e);
    }
  }

  public String url() {
    return url;
  }

  /** The port it listens on. */
  public int port() {
    return URI.create(url).getPort();
  }

  /** One JSON-RPC call; fails the test on an error answer. */
  public JsonNode call(String method, Object... params) throws IOException {
    ObjectNode req = request(method, params);
    JsonNode answer = JSON.readTree(post(JSON.writeValueAsBytes(req)));
    if (answer.has("error")) {
      throw new IOException(method + " failed: " + answer.get("error"));
    }
    return answer.get("result");
  }

  /** A batch of calls of one method, one params list each; the results in order (by id). */
  public List<JsonNode> batch(String method, List<Object[]> paramsList) throws IOException {
    ArrayNode reqs = JSON.createArrayNode();
    long firstId = nextId;
    for (Object[] params : paramsList) {
      reqs.add(request(method, params));
    }
    JsonNode answers = JSON.readTree(post(JSON.writeValueAsBytes(reqs)));
    List<JsonNode> out = new ArrayList<>(paramsList.size());
    for (int i = 0; i < paramsList.size(); i++) {
      out.add(null);
    }
    for (JsonNode a : answers) {
      if (a.has("error")) {
        throw new IOException(method + " failed: " + a.get("error"));
      }
      out.set((int) (a.get("id").asLong() - firstId), a.get("result"));
    }
    return out;
  }

  /**
   * Sends {@code count} plain value transfers from the dev accounts (round robin) in batches and
   * returns their hashes in sending order.
   */
  public List<String> sendTransfers(int count) throws IOException {
    List<String> hashes = new ArrayList<>(count);
    if (accounts == null) {
      accounts = new ArrayList<>();
      call("eth_accounts").forEach(a -> accounts.add(a.asString()));
      nonces = new long[accounts.size()];
      for (int i = 0; i < nonces.length; i++) {
        nonces[i] =
            Long.decode(call("eth_getTransactionCount", accounts.get(i), "pending").asString());
      }
    }
    for (int sent = 0; sent < count; ) {
      int n = Math.min(500, count - sent);
      int start = sent;
      List<Object[]> params = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int k = start + i;
        ObjectNode tx = JSON.createObjectNode();
        tx.put("from", accounts.get(k % accounts.size()));
        tx.put("to", accounts.get((k + 1) % accounts.size()));
        tx.put("value", "0x" + Long.toHexString(1 + k));
        tx.put("nonce", "0x" + Long.toHexString(nonces[k % accounts.size()]++));
        params.add(new Object[] {tx});
      }
      for (JsonNode h : batch("eth_sendTransaction", params)) {
        hashes.add(h.asString());
      }
      sent += n;
    }
    return hashes;
  }

  /** {@code anvil_mine [blocks]}. */
  public void mine(int blocks) throws IOException {
    call("anvil_mine", blocks);
  }

  public long blockNumber() throws IOException {
    return Long.decode(call("eth_blockNumber").asString());
  }

  private ObjectNode request(String method, Object... params) {
    ObjectNode req = JSON.createObjectNode();
    req.put("jsonrpc", "2.0");
    req.put("id", nextId++);
    req.put("method", method);
    req.set("params", JSON.valueToTree(params));
    return req;
  }

  private byte[] post(byte[] body) throws IOException {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    try {
      return http.send(req, HttpResponse.BodyHandlers.ofByteArray()).body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** What anvil printed (the first 20 kB), for failure messages. */
  public String output() {
    synchronized (output) {
      return output.toString();
    }
  }

  @Override
  public void close() {
    http.close();
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
