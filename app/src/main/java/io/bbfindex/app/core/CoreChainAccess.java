package io.bbfindex.app.core;

import io.bbfindex.app.cli.ChainAccess;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.ingest.NodeIndex;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/** The commands' access to Bitcoin Core data through chain-ingest. */
public final class CoreChainAccess implements ChainAccess {

  @Override
  public String ingest(Path datadir, Path filters, Path work, double targetFpr, PrintStream progress) throws IOException {
    throw new IOException("ingest needs the persistent filter store, which this build does not have yet");
  }

  @Override
  public ChainBackend open(Path datadir, Path filters, Path work, double targetFpr, PrintStream progress) throws IOException {
    long start = System.nanoTime();
    progress.println("bbf-index: opening " + datadir + " (private LevelDB snapshots under " + work + ")");
    NodeIndex index = NodeIndex.open(datadir, work);
    try {
      CoreChainBackend backend = CoreChainBackend.withMemoryFilters(index, targetFpr);
      progress.printf("bbf-index: index tip %d, %s, ready in %d ms%n", index.tipHeight(),
          backend.filters().stream().map(f -> f.name() + " " + f.keys() + " keys").toList(),
          (System.nanoTime() - start) / 1_000_000);
      return backend;
    } catch (RuntimeException e) {
      index.close();
      throw e;
    }
  }
}
