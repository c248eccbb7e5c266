package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Binary batches of 10,000 ids none of which was asked before in the benchmark: wrk with the Lua
 * script {@value #SCRIPT}, which takes one binary batch body (the first line of a request file, in
 * hex) and, for every request, XORs the first 8 bytes of each of its ids with a 64-bit word unique
 * to that request: SplitMix64's finaliser (a bijection) of (run, request, wrk thread). Ids of one
 * request differ in their other 24 bytes; two requests' words differ, so no id repeats across
 * requests, threads or runs (each run of one benchmark gets its own {@code run} number). A cached
 * answer, or a filter block left in cache by an earlier request for the same id, cannot help.
 *
 * <p>The client's cost: per request, 20,000 4-byte XORs (LuaJIT FFI) into a request formatted once
 * per thread, and one copy of it into a Lua string (wrk copies that into its buffer). Until
 * 2026-11-29 the body was copied into a string and then formatted into a request at every request
 * (two more copies, 609-805 µs of wrk CPU a request). wrk runs under {@code bash -c '...; times'}
 * so its CPU time (user + system, every thread) is read after the run ({@link
 * Run#clientCpuSeconds()}), here and, through {@link #timed}, for the fixed batches beside them.
 */
final class FreshBatch {

  static final String SCRIPT = "bbf-fresh-batch.lua";

  static final String LUA =
      """
      -- bbf-index bench http: binary batches of fresh ids. args: [1] a file whose first line is a
      -- binary batch body in hex, [2] the path POSTed to, [3] the run number of this wrk process.
      -- Per request, the first 8 bytes of every id are XORed with mix(run, request, thread).
      -- The whole request (head and body) is formatted once per thread in init() into one FFI
      -- buffer; a request patches its ids' 8 bytes in place and hands wrk one copy of it.
      local ffi = require("ffi")
      local counter = 0
      function setup(thread)
        thread:set("tid", counter)
        counter = counter + 1
      end
      local n, len, req, words, lo, hi, run
      local k = 0
      function init(args)
        local f = assert(io.open(args[1], "r"))
        local line = f:read("*l")
        f:close()
        local bytes = line:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
        n = #bytes / 32
        -- a padding header puts the body at an 8-byte offset: the ids' words are aligned
        local head
        for pad = 0, 7 do
          head = wrk.format("POST", args[2], {["Content-Type"] = "application/octet-stream",
            ["X-Pad"] = string.rep("p", pad)}, bytes)
          if (#head - #bytes) % 8 == 0 then break end
        end
        len = #head
        assert(head:sub(len - #bytes + 1) == bytes)
        req = ffi.new("uint8_t[?]", len)
        ffi.copy(req, head, len)
        -- 32-bit views: LuaJIT compiles bit ops on plain numbers; on 64-bit cdata it boxes each
        words = ffi.cast("int32_t*", req + (len - #bytes))
        lo = ffi.new("int32_t[?]", n)
        hi = ffi.new("int32_t[?]", n)
        for i = 0, n - 1 do lo[i] = words[i * 8]; hi[i] = words[i * 8 + 1] end
        run = tonumber(args[3])
      end
      local function mix(z)
        z = bit.bxor(z, bit.rshift(z, 30)) * 0xBF58476D1CE4E5B9ULL
        z = bit.bxor(z, bit.rshift(z, 27)) * 0x94D049BB133111EBULL
        return bit.bxor(z, bit.rshift(z, 31))
      end
      function request()
        k = k + 1
        -- run < 2^24, request < 2^30, thread < 2^10: one distinct 64-bit value each
        local c = mix((0ULL + run) * 1099511627776ULL + (0ULL + k) * 1024ULL + (tid or 0))
        local c0 = bit.tobit(tonumber(bit.band(c, 0xFFFFFFFFULL)))
        local c1 = bit.tobit(tonumber(bit.rshift(c, 32)))
        for i = 0, n - 1 do
          words[i * 8] = bit.bxor(lo[i], c0)
          words[i * 8 + 1] = bit.bxor(hi[i], c1)
        end
        return ffi.string(req, len)
      end
      """;

  /** {@code times}' second line: the children's user and system time. */
  private static final Pattern TIMES =
      Pattern.compile("^(\\d+)m([0-9.]+)s (\\d+)m([0-9.]+)s\\s*$", Pattern.MULTILINE);

  /** One wrk run and the CPU seconds wrk itself used (every thread, user + system). */
  record Run(WrkRun wrk, double clientCpuSeconds) {
    /** Client CPU microseconds a request. */
    double clientMicrosPerRequest() {
      return wrk.requests() == 0 ? Double.NaN : 1e6 * clientCpuSeconds / wrk.requests();
    }
  }

  private final Path script;
  private final AtomicInteger runs = new AtomicInteger();

  /** Every run so far by the server's base URL: the client's cost is printed per server. */
  private final Map<String, List<Run>> done = new ConcurrentHashMap<>();

  private FreshBatch(Path script) {
    this.script = script;
  }

  /** Writes the script into {@code dir}. */
  static FreshBatch in(Path dir) throws IOException {
    return new FreshBatch(Files.writeString(dir.resolve(SCRIPT), LUA, StandardCharsets.UTF_8));
  }

  /**
   * wrk POSTs fresh batches made from the first body of {@code binaryBodies} (hex lines) to {@code
   * baseUrl + postPath}.
   */
  Run run(
      Path wrk,
      String baseUrl,
      Path binaryBodies,
      String postPath,
      int threads,
      int connections,
      int seconds)
      throws IOException, InterruptedException {
    List<String> cmd =
        WrkRun.command(
            wrk, script, baseUrl, threads, connections, seconds, binaryBodies.toString());
    cmd.add(postPath);
    cmd.add(Integer.toString(runs.incrementAndGet()));
    Run run = timed(cmd);
    done.computeIfAbsent(baseUrl, u -> new CopyOnWriteArrayList<>()).add(run);
    return run;
  }

  /** Runs the wrk command {@code wrkCmd} under bash's {@code times}: its report and its CPU. */
  static Run timed(List<String> wrkCmd) throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(List.of("bash", "-c", "\"$@\"; s=$?; times; exit $s", "wrk-times"));
    cmd.addAll(wrkCmd);
    String report = WrkRun.output(cmd);
    return new Run(WrkRun.parse(report), childCpuSeconds(report));
  }

  /**
   * The client's cost in the runs against {@code baseUrl} (warm-up included): wrk's CPU a request,
   * and its share of the machine's cores over the runs.
   */
  void printClientCost(BenchReport r, String dataset, String baseUrl) {
    List<Run> all = done.getOrDefault(baseUrl, List.of());
    double cpu = all.stream().mapToDouble(Run::clientCpuSeconds).sum();
    long requests = all.stream().mapToLong(x -> x.wrk().requests()).sum();
    double wall = all.stream().mapToDouble(x -> x.wrk().seconds()).sum();
    int cores = Runtime.getRuntime().availableProcessors();
    r.line(
        "%s: the fresh batches' client (wrk + its Lua, every thread, user + system): %.0f µs CPU a"
            + " request over %,d requests, %.1f%% of the %d cores' time over its runs",
        dataset,
        requests == 0 ? Double.NaN : 1e6 * cpu / requests,
        requests,
        wall == 0 ? Double.NaN : 100 * cpu / (wall * cores),
        cores);
  }

  /** The children's user + system seconds of {@code times}' output (its last such line). */
  static double childCpuSeconds(String output) throws IOException {
    Matcher m = TIMES.matcher(output);
    double last = Double.NaN;
    while (m.find()) {
      last =
          60 * Long.parseLong(m.group(1))
              + Double.parseDouble(m.group(2))
              + 60 * Long.parseLong(m.group(3))
              + Double.parseDouble(m.group(4));
    }
    if (Double.isNaN(last)) {
      throw new IOException("no 'times' line after wrk's report: " + output.strip());
    }
    return last;
  }
}
