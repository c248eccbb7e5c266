package io.bbfindex.app.cli;

import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.OpeningBackend;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/** How {@code serve} starts: the HTTP server and the backend at the same time. */
public final class StartWhileOpening {
  private StartWhileOpening() {}

  /** Opens the backend ({@code ChainAccess.open}). */
  @FunctionalInterface
  public interface BackendOpener {
    ChainBackend open() throws IOException;
  }

  /** Starts the service over a backend ({@link Service#start}). */
  @FunctionalInterface
  public interface ServiceStarter {
    Service start(ChainBackend backend) throws IOException;
  }

  /**
   * Starts the HTTP server while the backend is opened on another thread, and returns once both are
   * done, so 'listening' is still printed when lookups are answered. At mainnet scale each takes
   * about a second (reading and verifying 1.75 GiB of summary; class loading and set-up of Netty,
   * Micrometer and the routes) and neither needs the other until the first lookup; one after the
   * other they took the sum. Meanwhile the server answers {@code /livez}, and 503 to lookups and
   * {@code /readyz} ({@link OpeningBackend}): nothing is answered from a store before it is
   * verified. If either fails, the other is undone and the failure thrown.
   */
  public static Service start(BackendOpener opener, ServiceStarter starter) throws IOException {
    OpeningBackend opening = new OpeningBackend();
    FutureTask<ChainBackend> open = new FutureTask<>(opener::open);
    Thread.ofPlatform().name("bbf-open-backend").start(open);
    Optional<Service> service = Optional.empty();
    try {
      service = Optional.of(starter.start(opening)); // closes `opening` if it cannot start
      opening.complete(opened(open));
      return service.get();
    } catch (IOException | RuntimeException | Error e) {
      if (service.isPresent()) {
        service.get().close(); // also closes `opening`
      } else {
        awaitAndClose(open, opening);
      }
      throw e;
    }
  }

  /** The opened backend, or the failure of opening it as it was thrown. */
  private static ChainBackend opened(FutureTask<ChainBackend> open) throws IOException {
    try {
      return open.get();
    } catch (InterruptedException e) {
      open.cancel(true);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while opening the index");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause(); // a task's failure is always there
      switch (cause) {
        case IOException io -> throw io;
        case RuntimeException r -> throw r;
        case Error err -> throw err;
        case null -> throw new IOException("opening the index failed", e);
        default -> throw new IOException(cause);
      }
    }
  }

  /**
   * After the server failed to start: waits for the backend being opened and closes it ({@code
   * opening} is closed, so handing the backend over closes it); its own failure is dropped.
   */
  private static void awaitAndClose(FutureTask<ChainBackend> open, OpeningBackend opening) {
    try {
      opening.complete(opened(open));
    } catch (IOException | RuntimeException e) {
      // the server's failure is the one reported
    }
  }
}
