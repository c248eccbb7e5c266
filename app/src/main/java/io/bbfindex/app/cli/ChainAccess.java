package io.bbfindex.app.cli;

import io.bbfindex.app.lookup.ChainBackend;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/** How the commands reach chain data: open a backend for {@code serve}, build filters for {@code ingest}. */
public interface ChainAccess {

  /**
   * Builds (or brings up to date) the filter store of {@code datadir} in {@code filters}.
   *
   * @param progress where progress lines go
   * @return a one-line summary for the user
   */
  String ingest(Path datadir, Path filters, Path work, double targetFpr, PrintStream progress) throws IOException;

  /**
   * Opens the backend over {@code datadir} and its filter store, ingesting first when the store is
   * missing.
   */
  ChainBackend open(Path datadir, Path filters, Path work, double targetFpr, PrintStream progress) throws IOException;
}
