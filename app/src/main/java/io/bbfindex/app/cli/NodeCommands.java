package io.bbfindex.app.cli;

import io.bbfindex.app.workdir.NodeDirectories;
import java.io.PrintStream;
import java.nio.file.Path;

/** What {@code serve} and {@code ingest} share about the node's default store. */
final class NodeCommands {
  private NodeCommands() {}

  /** The default store of the node's data, said on {@code err} so that a user knows where it is. */
  static Path defaultStore(NodeDirectories node, PrintStream err) {
    Path store = node.defaultStore(System.getenv());
    err.println(
        "bbf-index: filter store "
            + store
            + " (the default for "
            + node.netDir()
            + "; --filters/--out choose another)");
    return store;
  }
}
