package io.bbfindex.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A real JSON-RPC server on 127.0.0.1 (the JDK's) that answers block batches in a chosen shape:
 * reordered answers are re-matched by id; a single error object, a missing, unknown or repeated id,
 * or a short answer are refused, never read as another block.
 */
class BatchMatchingTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static {
    // The JDK server writes headers and body apart; without TCP_NODELAY each small answer waits
    // for a delayed ACK (~40 ms). Read once, when the first server is created.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  /** Starts a server whose answer to a batch is {@code shape(correct answers in request order)}. */
  private EthRpc serve(Function<ArrayNode, JsonNode> shape) throws IOException {
    return serve(shape, 1, Duration.ofSeconds(5), EthRpc.MAX_RESPONSE_BYTES);
  }

  private final java.util.concurrent.atomic.AtomicInteger largestBatch =
      new java.util.concurrent.atomic.AtomicInteger();

  private EthRpc serve(
      Function<ArrayNode, JsonNode> shape, int txsPerBlock, Duration timeout, long maxResponseBytes)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          JsonNode requests = JSON.readTree(exchange.getRequestBody().readAllBytes());
          largestBatch.accumulateAndGet(requests.size(), Math::max);
          ArrayNode answers = JSON.createArrayNode();
          for (JsonNode r : requests) {
            long n = Long.decode(r.get("params").get(0).asString());
            ObjectNode a = answer(r.get("id").asLong(), n);
            ArrayNode txs = (ArrayNode) a.get("result").get("transactions");
            for (int t = 1; t < txsPerBlock; t++) {
              txs.add("0x" + "%08x".formatted(t) + "%056x".formatted(n));
            }
            answers.add(a);
          }
          byte[] body = JSON.writeValueAsBytes(shape.apply(answers));
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    return EthRpc.connect(
        "http://127.0.0.1:" + server.getAddress().getPort(), timeout, maxResponseBytes);
  }

  /** Block n has hash 0x..n, parent 0x..(n-1) and one tx 0xff..n. */
  private static ObjectNode answer(long id, long n) {
    ObjectNode block = JSON.createObjectNode();
    block.put("number", "0x" + Long.toHexString(n));
    block.put("hash", hex(n));
    block.put("parentHash", hex(n - 1));
    block.putArray("transactions").add(txHex(n));
    ObjectNode a = JSON.createObjectNode();
    a.put("jsonrpc", "2.0");
    a.put("id", id);
    a.set("result", block);
    return a;
  }

  private static String hex(long n) {
    return "0x" + "%064x".formatted(Math.max(0, n));
  }

  private static String txHex(long n) {
    return "0xff" + "%062x".formatted(n);
  }

  @Test
  void reversedAnswersAreMatchedByIdNotPosition() throws Exception {
    try (EthRpc rpc =
        serve(
            answers -> {
              List<JsonNode> list = new ArrayList<>();
              answers.forEach(list::add);
              Collections.reverse(list);
              ArrayNode reversed = JSON.createArrayNode();
              list.forEach(reversed::add);
              return reversed;
            })) {
      List<BlockTxs> blocks = rpc.blocks(10, 59);
      assertEquals(50, blocks.size());
      for (int i = 0; i < blocks.size(); i++) {
        BlockTxs b = blocks.get(i);
        assertEquals(10 + i, b.number());
        assertEquals(hex(10 + i), b.hash().hex());
        assertEquals(List.of(TxHash.parse(txHex(10 + i))), b.txs());
      }
      assertEquals(50, rpc.calls().of("eth_getBlockByNumber"));
    }
  }

  @Test
  void oneErrorObjectForTheBatchIsRefused() throws Exception {
    try (EthRpc rpc =
        serve(
            answers -> {
              ObjectNode error = JSON.createObjectNode();
              error.put("jsonrpc", "2.0");
              error.putNull("id");
              error.putObject("error").put("code", -32600).put("message", "batch too large");
              return error;
            })) {
      EthRpcException e = assertThrows(EthRpcException.class, () -> rpc.blocks(0, 9));
      assertTrue(e.getMessage().contains("one object"), e.getMessage());
    }
  }

  @Test
  void anAnswerWithoutIdIsRefused() throws Exception {
    try (EthRpc rpc =
        serve(
            answers -> {
              ((ObjectNode) answers.get(3)).remove("id");
              return answers;
            })) {
      EthRpcException e = assertThrows(EthRpcException.class, () -> rpc.blocks(0, 9));
      assertTrue(e.getMessage().contains("no numeric id"), e.getMessage());
    }
  }

  @Test
  void anUnknownIdIsRefused() throws Exception {
    try (EthRpc rpc =
        serve(
            answers -> {
              ((ObjectNode) answers.get(2)).put("id", 987_654_321L);
              return answers;
            })) {
      EthRpcException e = assertThrows(EthRpcException.class, () -> rpc.blocks(0, 9));
      assertTrue(e.getMessage().contains("no request of the batch"), e.getMessage());
    }
  }

  @Test
  void aRepeatedIdIsRefused() throws Exception {
    try (EthRpc rpc =
        serve(
            answers -> {
              ((ObjectNode) answers.get(1)).put("id", answers.get(0).get("id").asLong());
              return answers;
            })) {
      EthRpcException e = assertThrows(EthRpcException.class, () -> rpc.blocks(0, 9));
      assertTrue(e.getMessage().contains("answered twice"), e.getMessage());
    }
  }

  @Test
  void aMissingAnswerIsRefused() throws Exception {
    try (EthRpc rpc =
        serve(
            answers -> {
              answers.remove(5);
              return answers;
            })) {
      EthRpcException e = assertThrows(EthRpcException.class, () -> rpc.blocks(0, 9));
      assertTrue(e.getMessage().contains("answered with 9 answers"), e.getMessage());
    }
  }

  @Test
  void anErrorAnswerInsideTheBatchFailsIt() throws Exception {
    try (EthRpc rpc =
        serve(
            answers -> {
              ObjectNode a = (ObjectNode) answers.get(4);
              a.remove("result");
              a.putObject("error").put("code", -32000).put("message", "header not found");
              return answers;
            })) {
      EthRpcException e = assertThrows(EthRpcException.class, () -> rpc.blocks(0, 9));
      assertTrue(e.getMessage().contains("header not found"), e.getMessage());
    }
  }

  @Test
  void anAnswerOverTheSizeLimitIsRetriedInSmallerBatches() throws Exception {
    // ~7 kB a block: the first batch of 100 blocks is far over 60 kB and is fetched in halves.
    try (EthRpc rpc = serve(answers -> answers, 100, Duration.ofSeconds(5), 60_000)) {
      List<BlockTxs> blocks = rpc.blocks(0, 299);
      assertEquals(300, blocks.size());
      for (int i = 0; i < 300; i++) {
        assertEquals(i, blocks.get(i).number());
        assertEquals(100, blocks.get(i).txs().size());
      }
      assertEquals(100, largestBatch.get(), "the first batch");
    }
  }

  @Test
  void aNodeThatDoesNotAnswerFailsWithinTheTimeout() throws Exception {
    try (EthRpc rpc =
        serve(
            answers -> {
              try {
                Thread.sleep(1_500);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return answers;
            },
            1,
            Duration.ofMillis(300),
            EthRpc.MAX_RESPONSE_BYTES)) {
      long start = System.nanoTime();
      EthRpcException e = assertThrows(EthRpcException.class, () -> rpc.blocks(0, 0));
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(ms < 1_200, ms + " ms: the answer comes after 1.5 s, the timeout is 0.3 s");
      assertTrue(e.getMessage().contains("failed"), e.getMessage());
    }
  }

  @Test
  void hashesMustBe0xAnd64HexDigits() {
    assertTrue(TxHash.problem("ab".repeat(32)).contains("0x"));
    assertTrue(TxHash.problem("0x" + "ab".repeat(31)).contains("64 hex digits"));
    assertTrue(TxHash.problem("0x" + "zz" + "ab".repeat(31)).contains("hex digit"));
    assertEquals(null, TxHash.problem("0x" + "aB".repeat(32)));
    assertEquals("0x" + "ab".repeat(32), TxHash.parse("0x" + "aB".repeat(32)).hex());
  }
}
