package io.bbfindex.follow.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Bitcoin Core's JSON-RPC (HTTP POST, Basic auth) and, where the node runs with {@code -rest=1},
 * its REST interface on the same port, through the JDK's {@link HttpClient}. Safe for concurrent
 * use. Every failure to reach the node is a {@link NodeUnreachableException}; an error the node
 * returns is an {@link RpcException}.
 */
public final class NodeRpc {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI endpoint;
  private final RpcCredentials credentials;
  private final Duration timeout;
  private final HttpClient http;
  private final AtomicLong ids = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();
  private volatile @Nullable Boolean restEnabled;

  /**
   * @param endpoint {@code http://host:port/} of the node's RPC server
   * @param timeout for one call, connect included
   */
  public NodeRpc(URI endpoint, RpcCredentials credentials, Duration timeout) {
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.credentials = Objects.requireNonNull(credentials, "credentials");
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  /** The default RPC port of a network as {@code getblockchaininfo}'s {@code chain} names it. */
  public static int defaultPort(String chain) {
    return switch (chain) {
      case "main" -> 8332;
      case "test" -> 18332;
      case "testnet4" -> 48332;
      case "signet" -> 38332;
      case "regtest" -> 18443;
      default -> throw new IllegalArgumentException("unknown network: " + chain);
    };
  }

  public URI endpoint() {
    return endpoint;
  }

  /** RPC and REST requests sent so far (monotonic): what proves a negative lookup made none. */
  public long requests() {
    return calls.get();
  }

  /**
   * Calls {@code method} with positional {@code params} (strings, numbers, booleans).
   *
   * @return the {@code result} member
   * @throws NodeUnreachableException if the node cannot be reached or is warming up
   * @throws RpcException if the node answers with an error
   * @throws IOException on an unreadable answer
   */
  public JsonNode call(String method, Object... params) throws IOException {
    return result(method, post(method, params));
  }

  /**
   * {@code getrawmempool false true}, parsed into {@code into} without a tree or an object per txid
   * (see {@link RawMempool}).
   *
   * @return {@code into}
   * @throws IOException as {@link #call}: unreachable, the node's error, or an unreadable answer
   */
  public RawMempool rawMempool(RawMempool into) throws IOException {
    HttpResponse<byte[]> response = post("getrawmempool", false, true);
    if (response.statusCode() == 200 && into.parse(response.body())) {
      return into;
    }
    result("getrawmempool", response); // throws the node's error, if the answer is one
    throw new IOException("getrawmempool: an answer without txids");
  }

  private HttpResponse<byte[]> post(String method, Object... params) throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("jsonrpc", "1.0");
    body.put("id", ids.incrementAndGet());
    body.put("method", method);
    ArrayNode array = body.putArray("params");
    for (Object p : params) {
      array.addPOJO(p);
    }
    HttpRequest request =
        HttpRequest.newBuilder(endpoint)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Authorization", authorization())
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build();
    HttpResponse<byte[]> response = send(request, method);
    if (response.statusCode() == 401 || response.statusCode() == 403) {
      // A restarted node has a new cookie; the caller retries after a pause.
      throw new NodeUnreachableException(
          method + ": the node refused the credentials (HTTP " + response.statusCode() + ")", null);
    }
    return response;
  }

  /** The {@code result} member of a JSON-RPC answer, or the node's error as an exception. */
  private static JsonNode result(String method, HttpResponse<byte[]> response) throws IOException {
    JsonNode answer;
    try {
      answer = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IOException(method + ": HTTP " + response.statusCode() + " with no JSON body", e);
    }
    JsonNode error = answer == null ? null : answer.get("error");
    if (error != null && !error.isNull()) {
      int code = error.path("code").asInt();
      if (code == RpcException.IN_WARMUP) {
        throw new NodeUnreachableException(
            method + ": node warming up: " + error.path("message").asText(), null);
      }
      throw new RpcException(method, code, error.path("message").asText());
    }
    if (answer == null || !answer.has("result")) {
      throw new IOException(method + ": HTTP " + response.statusCode() + " without a result");
    }
    return answer.get("result");
  }

  /**
   * The serialized block, from REST ({@code /rest/block/<hash>.bin}) when the node enables it,
   * otherwise from {@code getblock <hash> 0}.
   *
   * @return empty if the node does not have the block
   * @throws IOException as {@link #call}
   */
  public Optional<byte[]> block(Hash32 hash) throws IOException {
    if (restEnabled()) {
      HttpResponse<byte[]> r = get("/rest/block/" + hash.displayHex() + ".bin");
      if (r.statusCode() == 200) {
        return Optional.of(r.body());
      }
      if (r.statusCode() == 404
          && new String(r.body(), java.nio.charset.StandardCharsets.UTF_8).contains("not found")) {
        return Optional.empty();
      }
    }
    try {
      return Optional.of(HexFormat.of().parseHex(call("getblock", hash.displayHex(), 0).asText()));
    } catch (RpcException e) {
      if (e.code() == RpcException.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * Whether the node answers REST ({@code -rest=1}); probed once with {@code /rest/chaininfo.json}.
   */
  public boolean restEnabled() throws IOException {
    Boolean known = restEnabled;
    if (known == null) {
      known = get("/rest/chaininfo.json").statusCode() == 200;
      restEnabled = known;
    }
    return known;
  }

  private HttpResponse<byte[]> get(String path) throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(endpoint.resolve(path)).timeout(timeout).GET().build();
    return send(request, "GET " + path);
  }

  private String authorization() throws NodeUnreachableException {
    try {
      return credentials.basicHeader();
    } catch (IOException e) {
      // The cookie is missing while the node is down or starting.
      // Said without the path or exception class: the message reaches /v1/status and 503 bodies.
      throw new NodeUnreachableException(
          e instanceof java.nio.file.NoSuchFileException
              ? "the node's RPC cookie file does not exist (the node is down or starting, or is"
                  + " not the node of --datadir)"
              : "the node's RPC credentials cannot be read",
          e);
    }
  }

  /** Why a request failed, in words for status pages (no exception class names). */
  private static String reason(IOException e) {
    return switch (e) {
      case java.net.ConnectException _ -> "connection refused";
      case java.net.http.HttpTimeoutException _ -> "timed out";
      default ->
          "the connection failed" + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")");
    };
  }

  private HttpResponse<byte[]> send(HttpRequest request, String what) throws IOException {
    calls.incrementAndGet();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      // Refused, timed out, or reset mid-answer (the node stopped while we asked).
      throw new NodeUnreachableException(what + ": " + endpoint + ": " + reason(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NodeUnreachableException(what + ": interrupted", e);
    }
  }
}
