package io.bbfindex.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.eth.testing.AnvilNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code ./bbf-index serve --eth-rpc URL} from the README, through the launcher on the product jar,
 * beside a real anvil: the server must start (its JSON-RPC client's libraries in the jar's
 * Class-Path) and answer a transfer the node mined as {@code confirmed}, an unknown hash 404.
 */
class EthCommandTest {

  @Test
  void serveBesideAnvilAnswersItsTransactions() throws Exception {
    try (AnvilNode anvil = AnvilNode.start()) {
      List<String> sent = anvil.sendTransfers(3);
      anvil.mine(1);
      String command = ReadmeCommands.ETH.replace("http://127.0.0.1:8545", anvil.url());
      try (Launcher.Server s =
          Launcher.serve(
              Launcher.root(), Map.of(), Duration.ofMinutes(5), Launcher.onFreePort(command))) {
        for (String hash : sent) {
          Http.Answer a = awaitPresent(s.baseUrl() + "/v1/eth/tx/" + hash);
          assertEquals(200, a.status(), a.body() + "\n" + s.output());
          assertEquals("confirmed", a.body().path("status").asText(), a.body().toString());
        }
        Http.Answer absent = Http.get(s.baseUrl() + "/v1/eth/tx/0x" + "ab".repeat(32));
        assertEquals(404, absent.status(), absent.body().toString());
        assertEquals(200, Http.get(s.baseUrl() + "/v1/eth/status").status());
      }
    }
  }

  /** The server indexes the node's blocks after it starts listening: bounded wait. */
  private static Http.Answer awaitPresent(String url) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Http.Answer a = Http.get(url);
    while (a.status() != 200 && System.nanoTime() < deadline) {
      Thread.sleep(100);
      a = Http.get(url);
    }
    return a;
  }
}
