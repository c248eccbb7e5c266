package io.bbfindex.app.cli;

import io.bbfindex.app.esplora.EsploraApi;
import picocli.CommandLine.Option;

/** Where the esplora-compatible routes live, and whether they relay transactions. */
final class EsploraOptions {
  @Option(
      names = "--esplora-prefix",
      paramLabel = "P",
      description = "Where the esplora-compatible routes live (default ${DEFAULT-VALUE}).")
  String prefix = EsploraApi.DEFAULT_PREFIX;

  @Option(
      names = "--esplora-relay",
      description = "With --follow: POST <prefix>/tx relays to the node's sendrawtransaction.")
  boolean relay;

  /** The prefix, checked. */
  String prefix() throws UsageException {
    try {
      EsploraApi.checkPrefix(prefix);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    return prefix;
  }
}
