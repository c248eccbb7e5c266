package io.bbfindex.deploy;

import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The embedded demo's real data directory (mainnet blocks 0-599, Core 0.21.1) with a filter store
 * built once by {@code bbf-index ingest} in its own JVM: the immutable store that replicas share.
 */
record DemoStore(Path datadir, Path filters, List<String> txids) {

  static DemoStore build(Path dir) throws IOException, InterruptedException {
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, dir.resolve("datadir"));
    Path filters = dir.resolve("filters");
    ServerProcess.ingest(
        List.of(
            "--datadir",
            datadir.toString(),
            "--out",
            filters.toString(),
            "--work",
            dir.resolve("ingest-work").toString()),
        dir.resolve("ingest.log"));
    List<String> txids =
        Fixtures.txRows(Archive.MAINNET_LDB).stream().map(r -> r.txidHex()).toList();
    return new DemoStore(datadir, filters, txids);
  }

  /** {@code serve} of this store on 127.0.0.1, port 0, with its own scratch {@code work}. */
  ServerProcess serve(Path work, Path log) throws IOException, InterruptedException {
    return ServerProcess.serve(
        List.of("-Xmx256m"), ServerProcess.serveArgs(datadir, filters, work), log, 120);
  }
}
