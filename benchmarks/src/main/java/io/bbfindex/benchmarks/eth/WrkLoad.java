package io.bbfindex.benchmarks.eth;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Requests per second from wrk (https://github.com/wg/wrk) cycling through a file of requests, the
 * same way for the node and for the server: each line is a GET path, or a POST body sent to a fixed
 * path. Requests are formatted once in {@code init}, so the client's per-request cost is one table
 * index whatever the target. (bench http's runner is tied to Bitcoin's routes.)
 */
final class WrkLoad {
  private static final Pattern RPS =
      Pattern.compile("^Requests/sec:\\s+([0-9.]+)", Pattern.MULTILINE);
  private static final Pattern NON_2XX =
      Pattern.compile("^\\s*Non-2xx or 3xx responses: (\\d+)", Pattern.MULTILINE);
  private static final Pattern REQUESTS =
      Pattern.compile("^\\s*(\\d+) requests in", Pattern.MULTILINE);
  private static final Pattern SOCKET_ERRORS = Pattern.compile("Socket errors:");

  static final String LUA =
      """
      -- bench eth: cycles through the requests of the file named by the first argument: a GET
      -- path per line, or with "POST" and a path as further arguments a JSON body per line.
      local counter = 0
      function setup(thread)
        thread:set("tid", counter)
        counter = counter + 1
      end
      local reqs = {}
      local i = 0
      function init(args)
        local post = args[2] == "POST"
        local f = assert(io.open(args[1], "r"))
        for line in f:lines() do
          if post then
            reqs[#reqs + 1] = wrk.format("POST", args[3], {["Content-Type"] = "application/json"}, line)
          else
            reqs[#reqs + 1] = wrk.format("GET", line)
          end
        end
        f:close()
        i = ((tid or 0) * 7919) % #reqs
      end
      function request()
        i = i + 1
        if i > #reqs then i = 1 end
        return reqs[i]
      end
      """;

  /**
   * One run's figures.
   *
   * @param requests completed requests
   * @param perSecond requests per second
   * @param non2xx answers outside 2xx/3xx (404 is a negative's answer from the server)
   */
  record Result(long requests, double perSecond, long non2xx) {}

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
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String d : path.split(File.pathSeparator)) {
      Path p = Path.of(d.isEmpty() ? "." : d, "wrk");
      if (Files.isExecutable(p)) {
        Path script = Files.writeString(dir.resolve("bench-eth.lua"), LUA, StandardCharsets.UTF_8);
        return Optional.of(new WrkLoad(p, script, threads, connections));
      }
    }
    return Optional.empty();
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
  Result run(String baseUrl, Path lines, String postPath, int seconds)
      throws IOException, InterruptedException {
    List<String> cmd =
        new java.util.ArrayList<>(
            List.of(
                wrk.toString(),
                "-t" + threads,
                "-c" + connections,
                "-d" + seconds + "s",
                "--timeout",
                "5s",
                "-s",
                script.toString(),
                baseUrl,
                "--",
                lines.toString()));
    if (postPath != null) {
      cmd.add("POST");
      cmd.add(postPath);
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String report = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0 || SOCKET_ERRORS.matcher(report).find()) {
      throw new IOException("wrk failed: " + String.join(" ", cmd) + "\n" + report.strip());
    }
    Matcher rps = RPS.matcher(report);
    Matcher requests = REQUESTS.matcher(report);
    if (!rps.find() || !requests.find()) {
      throw new IOException("wrk's report lacks its figures:\n" + report.strip());
    }
    Matcher non2xx = NON_2XX.matcher(report);
    return new Result(
        Long.parseLong(requests.group(1)),
        Double.parseDouble(rps.group(1)),
        non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0);
  }
}
