package io.bbfindex.app.http;

import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.testing.ApiClient;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.bbfindex.ingest.testing.GroundTruth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A real server on 127.0.0.1 (port 0) over the real mainnet 0-599 fixture (chain-ingest's
 * NodeIndex, real blocked Bloom filters), with the fixture's ground truth and a client.
 *
 * @param known the display hex of every ground-truth txid
 */
record FixtureServer(
    GroundTruth truth, Set<String> known, ChainBackend backend, Service service, ApiClient api)
    implements AutoCloseable {

  /** Extracts the fixture into {@code tmp}, builds its filters and starts the server. */
  static FixtureServer start(Path tmp) throws IOException {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, tmp);
    GroundTruth truth = GroundTruth.load(Archive.MAINNET_LDB, datadir);
    ChainBackend backend = CoreBackends.open(datadir, tmp.resolve("filters"));
    Set<String> known =
        truth.txs().stream().map(GroundTruth.Tx::txidHex).collect(Collectors.toSet());
    Service service =
        Service.start(
            backend, new InetSocketAddress("127.0.0.1", 0), HttpInitializer.DEFAULT_MAX_BODY_BYTES);
    return new FixtureServer(
        truth, known, backend, service, new ApiClient(service.server().baseUrl()));
  }

  @Override
  public void close() {
    service.close();
  }
}
