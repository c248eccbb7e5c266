package io.bbfindex.app.follow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bbfindex.app.bitcoincore.TxIndexChoice;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.workdir.NodeDirectories;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.regtest.RegtestNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code serve --follow} of a running regtest node in this JVM, on 127.0.0.1, once it follows; its
 * filters and work directory under {@code tmp}.
 */
public record FollowedServer(FollowingBackend backend, Service service, ApiClient api)
    implements AutoCloseable {

  public static FollowedServer start(RegtestNode node, Path tmp)
      throws IOException, InterruptedException {
    FollowingBackend backend = open(node, tmp, 0);
    Service service =
        Service.start(
            backend,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES);
    try {
      assertEquals(
          FollowState.FOLLOWING, FollowServe.awaitFollowing(backend, Duration.ofSeconds(30)));
    } catch (AssertionError e) {
      service.close();
      throw e;
    }
    return new FollowedServer(backend, service, new ApiClient(service.server().baseUrl()));
  }

  /** The backend alone, refreshed every {@code refreshBlocks} blocks (0: never). */
  static FollowingBackend open(RegtestNode node, Path tmp, int refreshBlocks) throws IOException {
    return open(node, tmp, refreshBlocks, TxIndexChoice.AUTO, System.err);
  }

  /** As {@link #open(RegtestNode, Path, int)}, with {@code --txindex} and where it logs. */
  static FollowingBackend open(
      RegtestNode node, Path tmp, int refreshBlocks, TxIndexChoice txindex, PrintStream log)
      throws IOException {
    FollowOptions options =
        new FollowOptions(node.rpc().endpoint().toString(), null, null, null, null, refreshBlocks);
    return (FollowingBackend)
        FollowServe.open(
            NodeDirectories.resolve(node.datadir().resolve("regtest"), null),
            tmp.resolve("filters"),
            tmp.resolve("work"),
            0.01,
            options,
            txindex,
            log);
  }

  @Override
  public void close() {
    service.close();
  }
}
