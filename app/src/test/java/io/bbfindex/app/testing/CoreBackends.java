package io.bbfindex.app.testing;

import io.bbfindex.app.bitcoincore.CoreChainAccess;
import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * Real backends over extracted fixtures: chain-ingest's NodeIndex and real blocked Bloom filters.
 */
public final class CoreBackends {
  private CoreBackends() {}

  /** Extracts the fixture under {@code tmp} and opens the production backend over it. */
  public static ChainBackend open(Archive fixture, Path tmp) throws IOException {
    Path datadir = Fixtures.extract(fixture, tmp);
    return open(datadir, tmp.resolve(fixture.baseName + "-filters"));
  }

  /** The production backend over {@code datadir}, served on 127.0.0.1 at a free port. */
  public static Service serve(Path datadir, Path filters) throws IOException {
    return Service.start(
        open(datadir, filters),
        new InetSocketAddress("127.0.0.1", 0),
        HttpInitializer.DEFAULT_MAX_BODY_BYTES);
  }

  public static ChainBackend open(Path datadir, Path filters) throws IOException {
    return new CoreChainAccess()
        .open(
            ServeRequest.of(
                datadir, filters, filters.resolveSibling(filters.getFileName() + "-work"), 0.01),
            new PrintStream(OutputStream.nullOutputStream()));
  }
}
