package io.bbfindex.benchmarks.eth;

import io.bbfindex.benchmarks.http.WrkRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * bench http's wrk runner ({@link WrkRun}: one request-list script, one report parser) with the
 * thread and connection counts bench eth drives both the node and the server with. A run that
 * reports socket errors is refused, so a rate never counts failed connections.
 */
final class WrkLoad {
  private final Path wrk;
  private final Path script;
  private final int threads;
  private final int connections;

  private WrkLoad(Path wrk, Path script, int threads, int connections) {
    this.wrk = wrk;
    this.script = script;
    this.threads = threads;
    this.connections = connections;
  }

  /** wrk from the PATH with the script written into {@code dir}, or empty without wrk. */
  static Optional<WrkLoad> find(Path dir, int threads, int connections) throws IOException {
    Optional<Path> wrk = WrkRun.findWrk();
    if (wrk.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new WrkLoad(wrk.get(), WrkRun.writeScript(dir), threads, connections));
  }

  String describe() {
    return "wrk, " + threads + " threads, " + connections + " connections";
  }

  /**
   * Runs wrk for {@code seconds} against {@code baseUrl}: GET of each line of {@code lines}, or
   * POST of each line to {@code postPath} when it is not null.
   *
   * @throws IOException if wrk fails, reports socket errors or lacks a figure
   */
  WrkRun run(String baseUrl, Path lines, @Nullable String postPath, int seconds)
      throws IOException, InterruptedException {
    WrkRun r =
        WrkRun.run(wrk, script, baseUrl, lines, postPath, false, threads, connections, seconds);
    if (r.socketErrors() > 0) {
      throw new IOException(
          "wrk reported "
              + r.socketErrors()
              + " socket errors against "
              + baseUrl
              + " ("
              + lines
              + ")");
    }
    return r;
  }
}
