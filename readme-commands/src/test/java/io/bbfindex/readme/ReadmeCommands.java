package io.bbfindex.readme;

import java.util.List;

/**
 * The launcher commands of the README this module runs, each by the test named beside it. A command
 * the README shows that is not here fails {@link ReadmeCoverageTest}: a new command reaches the
 * README only with a test that runs it.
 */
final class ReadmeCommands {
  private ReadmeCommands() {}

  /** {@link DemoCommandsTest}. */
  static final String DEMO = "./bbf-index serve";

  /** What CI runs ({@code .ci/run}): this build itself. */
  static final String TEST = "./bbf-index test";

  /** {@link SidecarCommandTest}. */
  static final String SIDECAR = "./bbf-index serve --datadir ~/.bitcoin --follow";

  /** {@link DataDirCommandsTest}. */
  static final String INGEST = "./bbf-index ingest --datadir ~/.bitcoin --out ~/bbf-filters";

  /** {@link DataDirCommandsTest}. */
  static final String SERVE_STORE =
      "./bbf-index serve  --datadir ~/.bitcoin --filters ~/bbf-filters --port 8080";

  /** {@link EthCommandTest}: the README's node URL is replaced by the test anvil's. */
  static final String ETH = "./bbf-index serve --eth-rpc http://127.0.0.1:8545";

  /** {@link BenchCommandsTest}: every suite's help, from a fresh copy of the tree. */
  static final String BENCH_PREFIX = "./bbf-index bench ";

  static final List<String> ALL = List.of(DEMO, TEST, SIDECAR, INGEST, SERVE_STORE, ETH);
}
