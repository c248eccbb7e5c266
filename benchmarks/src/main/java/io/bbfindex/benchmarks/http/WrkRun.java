package io.bbfindex.benchmarks.http;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One run of wrk (https://github.com/wg/wrk, Debian package {@code wrk}) with {@code --latency} and
 * the request-list script {@value #SCRIPT}, and its report parsed.
 *
 * <p>The script cycles through a file of requests, one per line: a path for GET, or a JSON body
 * POSTed to one fixed path (bench http's {@code /v1/tx/lookup}, bench eth's node and batch routes).
 * Requests are formatted once in {@code init}, so the client's per-request Lua cost is one table
 * index whatever the target: /livez, lookups and batches are measured through the same client path
 * (wrk shares the machine's cores with the server).
 *
 * @param requests completed requests
 * @param seconds wall time of the run, as wrk reports it
 * @param non2xx responses with a status outside 2xx/3xx (404 is the expected answer to a negative)
 * @param socketErrors connect + read + write + timeout errors
 */
public record WrkRun(
    long requests,
    double seconds,
    double requestsPerSecond,
    double p50Millis,
    double p99Millis,
    long non2xx,
    long socketErrors) {

  static final String SCRIPT = "bbf-requests.lua";

  private static final Pattern REQUESTS =
      Pattern.compile("^\\s*(\\d+) requests in ([0-9.]+)(us|ms|s|m)", Pattern.MULTILINE);
  private static final Pattern RPS =
      Pattern.compile("^Requests/sec:\\s+([0-9.]+)", Pattern.MULTILINE);
  private static final Pattern NON_2XX =
      Pattern.compile("^\\s*Non-2xx or 3xx responses: (\\d+)", Pattern.MULTILINE);
  private static final Pattern SOCKET =
      Pattern.compile(
          "^\\s*Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)",
          Pattern.MULTILINE);

  static final String LUA =
      """
      -- bbf-index benchmarks: cycles through a list of requests (one per line of the file named by
      -- the first script argument): a path for GET, or with "POST" and a path as further arguments
      -- a JSON body POSTed to that path, or with "POST", a path and "binary" a body written in hex
      -- that is POSTed as the bytes it spells (application/octet-stream). Requests are formatted
      -- once per thread in init().
      local counter = 0
      function setup(thread)
        thread:set("tid", counter)
        counter = counter + 1
      end
      local reqs = {}
      local i = 0
      function init(args)
        local post = args[2] == "POST"
        local binary = args[4] == "binary"
        local f = assert(io.open(args[1], "r"))
        for line in f:lines() do
          if binary then
            local bytes = line:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
            reqs[#reqs + 1] = wrk.format("POST", args[3], {["Content-Type"] = "application/octet-stream"}, bytes)
          elseif post then
            reqs[#reqs + 1] = wrk.format("POST", args[3], {["Content-Type"] = "application/json"}, line)
          else
            reqs[#reqs + 1] = wrk.format("GET", line)
          end
        end
        f:close()
        -- threads start at different places in the list
        i = ((tid or 0) * 7919) % #reqs
      end
      function request()
        i = i + 1
        if i > #reqs then i = 1 end
        return reqs[i]
      end
      """;

  /** The wrk executable on the PATH, if any. */
  public static Optional<Path> findWrk() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String d : path.split(File.pathSeparator)) {
      Path p = Path.of(d.isEmpty() ? "." : d, "wrk");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The wrk executable on the PATH; an IOException naming the package when there is none. */
  public static Path require() throws IOException {
    return findWrk()
        .orElseThrow(() -> new IOException("wrk is not installed (apt-get install wrk)"));
  }

  /**
   * Whether wrk is installed; if not, says so on stderr for {@code bbf-index bench SUITE} (whose
   * command then exits 2).
   */
  public static boolean installedFor(String suite) {
    if (findWrk().isPresent()) {
      return true;
    }
    System.err.println(
        "bbf-index bench " + suite + ": wrk is not installed (Debian/Ubuntu: apt-get install wrk)");
    return false;
  }

  /** Writes the script into {@code dir}. */
  public static Path writeScript(Path dir) throws IOException {
    return Files.writeString(dir.resolve(SCRIPT), LUA, StandardCharsets.UTF_8);
  }

  /**
   * Runs wrk against {@code baseUrl} with requests from {@code requestFile}: GETs of its paths, or,
   * when {@code postPath} is not null, its lines POSTed to {@code postPath}: as JSON, or with
   * {@code binary} as the bytes each line spells in hex ({@code Content-Type:
   * application/octet-stream}).
   *
   * @throws IOException if wrk fails or its report lacks a figure
   */
  public static WrkRun run(
      Path wrk,
      Path script,
      String baseUrl,
      Path requestFile,
      @Nullable String postPath,
      boolean binary,
      int threads,
      int connections,
      int seconds)
      throws IOException, InterruptedException {
    return parse(
        report(wrk, script, baseUrl, requestFile, postPath, binary, threads, connections, seconds));
  }

  /** As {@link #run}, wrk's report as it printed it (a script's {@code done} lines included). */
  static String report(
      Path wrk,
      Path script,
      String baseUrl,
      Path requestFile,
      @Nullable String postPath,
      boolean binary,
      int threads,
      int connections,
      int seconds)
      throws IOException, InterruptedException {
    return output(
        requestCommand(
            wrk, script, baseUrl, requestFile, postPath, binary, threads, connections, seconds));
  }

  /** The command line {@link #report} runs (a mutable list). */
  static List<String> requestCommand(
      Path wrk,
      Path script,
      String baseUrl,
      Path requestFile,
      @Nullable String postPath,
      boolean binary,
      int threads,
      int connections,
      int seconds) {
    List<String> cmd =
        command(wrk, script, baseUrl, threads, connections, seconds, requestFile.toString());
    if (postPath != null) {
      cmd.add("POST");
      cmd.add(postPath);
      if (binary) {
        cmd.add("binary");
      }
    }
    return cmd;
  }

  /**
   * {@code wrk} with the usual options and {@code script} against {@code baseUrl}, then {@code --}
   * and the script's first argument (a mutable list: more may follow).
   */
  static List<String> command(
      Path wrk,
      Path script,
      String baseUrl,
      int threads,
      int connections,
      int seconds,
      String scriptArgument) {
    return new ArrayList<>(
        List.of(
            wrk.toString(),
            "-t" + threads,
            "-c" + connections,
            "-d" + seconds + "s",
            "--timeout",
            "5s",
            "--latency",
            "-s",
            script.toString(),
            baseUrl,
            "--",
            scriptArgument));
  }

  /** Runs {@code cmd} (wrk, or a shell around it); its output, or an IOException if it failed. */
  static String output(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String report = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException(
          "wrk failed (exit "
              + p.exitValue()
              + "): "
              + String.join(" ", cmd)
              + "\n"
              + report.strip());
    }
    return report;
  }

  /** Parses wrk's report (with {@code --latency}). */
  static WrkRun parse(String report) throws IOException {
    Matcher req = find(REQUESTS, report, "'N requests in T'");
    long requests = Long.parseLong(req.group(1));
    double seconds = millis(Double.parseDouble(req.group(2)), req.group(3)) / 1000;
    double rps = Double.parseDouble(find(RPS, report, "'Requests/sec'").group(1));
    Matcher non2xx = NON_2XX.matcher(report);
    long bad = non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0;
    Matcher sock = SOCKET.matcher(report);
    long socketErrors = 0;
    if (sock.find()) {
      for (int g = 1; g <= 4; g++) {
        socketErrors += Long.parseLong(sock.group(g));
      }
    }
    return new WrkRun(
        requests,
        seconds,
        rps,
        percentile(report, "50"),
        percentile(report, "99"),
        bad,
        socketErrors);
  }

  private static double percentile(String report, String pct) throws IOException {
    Matcher m =
        find(
            Pattern.compile("^\\s+" + pct + "%\\s+([0-9.]+)(us|ms|s|m)\\s*$", Pattern.MULTILINE),
            report,
            pct + "% latency (run with --latency)");
    return millis(Double.parseDouble(m.group(1)), m.group(2));
  }

  private static double millis(double v, String unit) {
    return switch (unit) {
      case "us" -> v / 1_000;
      case "ms" -> v;
      case "s" -> v * 1_000;
      default -> v * 60_000;
    };
  }

  private static Matcher find(Pattern p, String report, String what) throws IOException {
    Matcher m = p.matcher(report);
    if (!m.find()) {
      throw new IOException("no " + what + " in wrk's report: " + report.strip());
    }
    return m;
  }
}
