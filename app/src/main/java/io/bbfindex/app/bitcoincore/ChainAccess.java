package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.lookup.ChainBackend;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * How the commands reach chain data: open a backend for {@code serve}, build filters for {@code
 * ingest}.
 */
public interface ChainAccess {

  /**
   * Builds (or brings up to date) the filter store of {@code datadir} in {@code filters}, with the
   * user's {@code store} choices.
   *
   * @param log where one-line messages go (long work also reports rate and ETA)
   * @return a summary for the user
   */
  String ingest(Path datadir, Path filters, Path work, StoreChoices store, PrintStream log)
      throws IOException;

  /**
   * Opens the backend {@code request} asks for over the node's data and its filter store, building
   * first whatever the store lacks (missing, damaged, or behind the index).
   *
   * @param log where one-line messages go
   */
  ChainBackend open(ServeRequest request, PrintStream log) throws IOException;
}
