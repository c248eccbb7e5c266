package io.bbfindex.deploy;

import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The embedded demo's real data directory (mainnet blocks 0-599, Core 0.21.1) and the filter store
 * its replicas share: the first {@code serve} builds it (as {@code ingest} would), the later ones
 * only verify and map it. One JVM fewer than a separate {@code ingest} run, on a machine where
 * every JVM start counts.
 */
record DemoStore(Path datadir, Path filters, List<String> txids) {

  static DemoStore extract(Path dir) throws IOException {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, dir.resolve("datadir"));
    List<String> txids =
        Fixtures.txRows(Archive.MAINNET_LDB).stream().map(r -> r.txidHex()).toList();
    return new DemoStore(datadir, dir.resolve("filters"), txids);
  }

  /**
   * {@code serve} of this store on 127.0.0.1, port 0, with its own scratch {@code work}; builds the
   * store when it is missing.
   */
  ServerProcess serve(Path work, Path log) throws IOException, InterruptedException {
    return ServerProcess.serve(
        List.of("-Xmx256m"), ServerProcess.serveArgs(datadir, filters, work), log, 180);
  }
}
