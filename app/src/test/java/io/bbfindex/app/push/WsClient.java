package io.bbfindex.app.push;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A WebSocket client over the JDK's: text messages parsed as JSON, the close code kept. */
final class WsClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
  private final java.util.List<JsonNode> received = new java.util.ArrayList<>();
  private final CompletableFuture<Integer> closeCode = new CompletableFuture<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private final WebSocket socket;

  WsClient(String url) throws Exception {
    socket =
        http.newWebSocketBuilder()
            .buildAsync(URI.create(url), new Listener())
            .get(10, TimeUnit.SECONDS);
  }

  private final class Listener implements WebSocket.Listener {
    private final StringBuilder text = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        try {
          messages.add(JSON.readTree(text.toString()));
        } catch (Exception e) {
          messages.add(JSON.createObjectNode().put("unparsable", text.toString()));
        }
        text.setLength(0);
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
      closeCode.complete(statusCode);
      return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      closeCode.complete(-1);
    }
  }

  void send(String text) throws Exception {
    socket.sendText(text, true).get(5, TimeUnit.SECONDS);
  }

  void sendBinary(byte[] bytes) throws Exception {
    socket.sendBinary(ByteBuffer.wrap(bytes), true).get(5, TimeUnit.SECONDS);
  }

  /** The next message that has {@code key}, skipping others, within {@code timeout}. */
  JsonNode await(String key, Duration timeout) throws InterruptedException {
    return await(m -> m.has(key), key, timeout);
  }

  /**
   * The first message not taken yet that {@code wanted} accepts (earlier ones that it does not
   * accept stay for later awaits), within {@code timeout}.
   */
  JsonNode await(Predicate<JsonNode> wanted, String what, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      JsonNode m;
      while ((m = messages.poll()) != null) {
        received.add(m);
      }
      for (int i = 0; i < received.size(); i++) {
        if (wanted.test(received.get(i))) {
          return received.remove(i);
        }
      }
      assertTrue(
          System.nanoTime() < deadline,
          "no " + what + " message within " + timeout + "; got " + received);
      Thread.sleep(5);
    }
  }

  /** The close code the server sent, within {@code timeout}. */
  int closeCode(Duration timeout) throws Exception {
    return closeCode.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    socket.abort();
    http.shutdownNow();
  }
}
