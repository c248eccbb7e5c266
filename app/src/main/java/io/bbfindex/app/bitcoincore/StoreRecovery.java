package io.bbfindex.app.bitcoincore;

import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Watches a served filter store's files off the hot path and brings the store back when they change
 * under the server (issue #15, D1: truncated, rewritten in place, a backup copied over it, another
 * file renamed over it).
 *
 * <p>Every {@link #POLL} it asks the store whether its manifest and filter files are still the ones
 * verified ({@link FilterStore#changedOnDisk}: one stat per file). When they are not, the service
 * is marked not ready with the reason, and, once the directory has stopped changing for {@link
 * #SETTLE} (a backup being copied should finish first), the store is reopened ({@link Reopen}:
 * {@code FilterBuilder.ensureBuilt} re-verifies every checksum, reloads the store if it is valid
 * and consistent with its manifest, rebuilds what fails otherwise), retrying with a growing pause
 * until that succeeds; the fresh store is then served and the service is ready again.
 *
 * <p>Lookups go on meanwhile, answered from the verified in-memory copy of the store that was
 * serving (a changed file cannot reach it): never a wrong answer, the operators told by {@code
 * /readyz}, and recovery without a restart.
 */
final class StoreRecovery {
  private static final System.Logger LOG = System.getLogger(StoreRecovery.class.getName());

  /** How often the store's files are stat'ed. */
  static final Duration POLL = Duration.ofSeconds(1);

  /** How long the store's directory must stay unchanged before a reopen. */
  static final Duration SETTLE = Duration.ofSeconds(1);

  private static final Duration MAX_PAUSE = Duration.ofSeconds(30);

  /** Opens a verified store (rebuilding what it must). */
  @FunctionalInterface
  interface Reopen {
    FilterStore open() throws IOException;
  }

  /** The backend whose store is watched. */
  interface Served {
    /** The store served now. */
    FilterStore store();

    /** Not ready from now on, for {@code reason}. */
    void notReady(String reason);

    /** Serve {@code fresh} from now on, and be ready again. */
    void swap(FilterStore fresh);

    /** False once the backend closed: the watcher then stops. */
    boolean wanted();
  }

  private StoreRecovery() {}

  /** Starts the watcher thread (a daemon; it stops once {@link Served#wanted} is false). */
  static Thread watch(Served served, Reopen reopen) {
    Objects.requireNonNull(served, "served");
    Objects.requireNonNull(reopen, "reopen");
    Thread t =
        Thread.ofPlatform().daemon().name("bbf-store-watch").unstarted(() -> run(served, reopen));
    t.start();
    return t;
  }

  private static void run(Served served, Reopen reopen) {
    try {
      while (served.wanted()) {
        Thread.sleep(POLL);
        FilterStore s = served.store();
        Optional<String> change = s.changedOnDisk();
        if (change.isPresent() && served.wanted()) {
          // /readyz shows the reason: it names the file, never the store's local path
          String reason =
              "the filter store changed on disk since it was verified ("
                  + change.get()
                  + "): verifying it again; lookups answer from the verified copy meanwhile (503"
                  + " while the store had no copy yet)";
          LOG.log(Level.WARNING, s.dir() + ": " + reason);
          served.notReady(reason);
          recover(s.dir(), reason, served, reopen);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void recover(Path dir, String reason, Served served, Reopen reopen)
      throws InterruptedException {
    Duration pause = SETTLE;
    while (served.wanted()) {
      awaitSettled(dir, served);
      try {
        FilterStore fresh = reopen.open();
        LOG.log(Level.INFO, "filter store " + dir + " verified again, serving it");
        served.swap(fresh);
        return;
      } catch (IOException | RuntimeException e) {
        LOG.log(
            Level.WARNING,
            "filter store " + dir + " still unusable (retry in " + pause + "): " + e);
        served.notReady(reason + "; the last attempt failed (the reason is in the log)");
      }
      Thread.sleep(pause);
      pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
    }
  }

  private static void awaitSettled(Path dir, Served served) throws InterruptedException {
    String before = state(dir);
    while (served.wanted()) {
      Thread.sleep(SETTLE);
      String now = state(dir);
      if (now.equals(before)) {
        return;
      }
      before = now;
    }
  }

  /** Name, inode, size and modification time of every file in {@code dir}. */
  private static String state(Path dir) {
    StringBuilder b = new StringBuilder();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
        b.append(f.getFileName())
            .append('/')
            .append(a.fileKey())
            .append('/')
            .append(a.size())
            .append('/')
            .append(a.lastModifiedTime())
            .append('\n');
      }
    } catch (IOException e) {
      b.append("unreadable: ").append(e.getMessage());
    }
    return b.toString();
  }
}
