package io.bbfindex.readme;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a README command as a user types it: through {@code bash -c} in the project root (so {@code
 * ~} is the given {@code HOME}), on the packaged jars the build just made.
 */
final class Launcher {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)");

  private Launcher() {}

  static Path root() {
    return Path.of(System.getProperty("bbf.root", "..")).toAbsolutePath().normalize();
  }

  /** What a finished command printed (stdout and stderr together) and its exit code. */
  record Result(int exitCode, String output) {}

  /** Runs {@code command} in {@code dir} to its end (killed after {@code timeout}). */
  static Result run(Path dir, Map<String, String> env, Duration timeout, String command)
      throws IOException, InterruptedException {
    Process p = start(dir, env, command);
    CompletableFuture<String> out =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
              } catch (IOException e) {
                return "(output unreadable: " + e + ")";
              }
            });
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError("'" + command + "' did not end within " + timeout);
    }
    return new Result(p.exitValue(), out.join());
  }

  private static Process start(Path dir, Map<String, String> env, String command)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", "exec " + command);
    pb.directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().putAll(env);
    return pb.start();
  }

  /** A {@code serve} started from a README line, until closed. */
  static final class Server implements AutoCloseable {
    private final Process process;
    private final StringBuffer output;
    private final String baseUrl;

    private Server(Process process, String baseUrl, StringBuffer output) {
      this.process = process;
      this.baseUrl = baseUrl;
      this.output = output; // the reader thread goes on appending to it
    }

    /** http://127.0.0.1:PORT of the server. */
    String baseUrl() {
      return baseUrl;
    }

    String output() {
      return output.toString();
    }

    @Override
    public void close() {
      process.destroy(); // SIGTERM, as Ctrl-C: the server closes its store and snapshots
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Starts {@code command} (a {@code serve}) and returns once it printed {@code listening on}.
   *
   * @throws AssertionError if it exits or stays silent for {@code timeout}, with its output
   */
  static Server serve(Path dir, Map<String, String> env, Duration timeout, String command)
      throws IOException, InterruptedException {
    Process p = start(dir, env, command);
    StringBuffer output = new StringBuffer();
    CompletableFuture<String> url = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("serve-output")
        .start(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  output.append(line).append('\n');
                  Matcher m = LISTENING.matcher(line);
                  if (m.find()) {
                    url.complete(m.group(1));
                  }
                }
              } catch (IOException ignored) {
                // the process ended
              }
              url.complete(null);
            });
    String base;
    try {
      base = url.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      base = null;
    }
    if (base == null) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("'" + command + "' did not start listening:\n" + output);
    }
    return new Server(p, base, output);
  }

  /** {@code command} with the README's port 8080 replaced by the port of {@code base}. */
  static String onServer(String command, String base) {
    return command.replace("http://127.0.0.1:8080", base);
  }

  /** A serve line of the README with {@code --port 0} (a free port) in place of its own. */
  static String onFreePort(String serveCommand) {
    String c = serveCommand.replaceAll(" --port \\d+", "");
    return c + " --port 0";
  }
}
