package io.bbfindex.app.bitcoincore;

import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Brings a faulted filter store back in the background: waits until the faulted file has stopped
 * changing (a backup being copied over it should finish first), then reopens the store ({@link
 * Reopen}: re-verify every checksum, and rebuild what fails them when the index is at hand),
 * retrying with a growing pause until it succeeds or is no longer wanted.
 */
final class StoreRecovery {
  private static final System.Logger LOG = System.getLogger(StoreRecovery.class.getName());

  /** How long the faulted file must keep its size and modification time before a reopen. */
  static final Duration SETTLE = Duration.ofSeconds(1);

  private static final Duration MAX_PAUSE = Duration.ofSeconds(30);

  /** Opens a verified store (rebuilding what it must). */
  @FunctionalInterface
  interface Reopen {
    FilterStore open() throws IOException;
  }

  private StoreRecovery() {}

  /**
   * Starts the recovery thread.
   *
   * @param faulted the file that faulted or changed
   * @param swap receives the reopened store
   * @param wanted false once the owner closed: the thread then stops
   */
  static Thread start(
      Path faulted, Reopen reopen, Consumer<FilterStore> swap, BooleanSupplier wanted) {
    Objects.requireNonNull(reopen, "reopen");
    Thread t =
        Thread.ofPlatform()
            .daemon()
            .name("bbf-store-recovery")
            .unstarted(() -> run(faulted, reopen, swap, wanted));
    t.start();
    return t;
  }

  private static void run(
      Path faulted, Reopen reopen, Consumer<FilterStore> swap, BooleanSupplier wanted) {
    Duration pause = SETTLE;
    try {
      while (wanted.getAsBoolean()) {
        awaitSettled(faulted, wanted);
        try {
          FilterStore s = reopen.open();
          LOG.log(Level.INFO, "filter store " + s.dir() + " verified again after " + faulted);
          swap.accept(s);
          return;
        } catch (IOException | RuntimeException e) {
          LOG.log(
              Level.WARNING,
              "filter store still unusable after " + faulted + " (retry in " + pause + "): " + e);
        }
        Thread.sleep(pause);
        pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitSettled(Path file, BooleanSupplier wanted) throws InterruptedException {
    String before = state(file);
    while (wanted.getAsBoolean()) {
      Thread.sleep(SETTLE);
      String now = state(file);
      if (now.equals(before)) {
        return;
      }
      before = now;
    }
  }

  private static String state(Path file) {
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      return a.fileKey() + "/" + a.size() + "/" + a.lastModifiedTime();
    } catch (IOException e) {
      return "unreadable: " + e.getMessage();
    }
  }
}
