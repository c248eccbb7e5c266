package io.bbfindex.ingest.filterbuild;

import com.google.common.util.concurrent.Uninterruptibles;
import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import org.jspecify.annotations.Nullable;

/**
 * The filter store of a directory being opened and verified on its own thread ({@link
 * FilterStore#openMappedFirst}: every byte's CRC32C, 1.84 GB of summary at mainnet geometry) while
 * the caller opens the node's block index, which the check of the store against the node needs: the
 * two took one after the other at every start of {@code serve}, and neither needs the other. {@link
 * FilterBuilder#ensureBuilt(io.bbfindex.ingest.NodeIndex, Path, BuildOptions, ProgressListener,
 * VerifiedAhead)} takes the store and checks it against the node exactly as if it had opened it
 * itself; nothing is served from it before.
 */
public final class VerifiedAhead implements AutoCloseable {

  private final Path dir;
  private final FutureTask<@Nullable FilterStore> task;

  /** Whether the store was taken, or given up by {@link #close}. */
  private boolean claimed;

  private VerifiedAhead(Path dir, Executor copyOn) {
    this.dir = dir;
    this.task = new FutureTask<>(() -> FilterBuilder.openIfValid(dir, copyOn));
  }

  /**
   * Starts opening and verifying the store in {@code dir} (if it has one) on a daemon thread, its
   * in-memory copies made on {@code copyOn} (e.g. {@link FilterStore#copiesAfter}: once the server
   * is ready).
   */
  public static VerifiedAhead start(Path dir, Executor copyOn) {
    VerifiedAhead v =
        new VerifiedAhead(
            Objects.requireNonNull(dir, "dir"), Objects.requireNonNull(copyOn, "copyOn"));
    Thread.ofPlatform().name("bbf-store-verify").daemon().start(v.task);
    return v;
  }

  Path dir() {
    return dir;
  }

  /**
   * The store as verified (it then belongs to the caller), or null when the directory holds none or
   * it failed its checks (the build then says what is bad and rebuilds it).
   */
  @Nullable FilterStore take() throws IOException {
    synchronized (this) {
      if (claimed) {
        throw new IllegalStateException("the store verified ahead in " + dir + " was claimed");
      }
      claimed = true;
    }
    try {
      return task.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      // the verification goes on: its store is closed once it is done
      Thread.ofPlatform().name("bbf-store-verify-close").daemon().start(this::closeWhenDone);
      throw new InterruptedIOException("interrupted while verifying the filter store in " + dir);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IOException("verifying the filter store in " + dir + " failed", e.getCause());
    }
  }

  /**
   * Frees the store unless it was taken (the start failed before the build), once its verification
   * has ended. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (claimed) {
        return;
      }
      claimed = true;
    }
    closeWhenDone();
  }

  private void closeWhenDone() {
    try {
      FilterStore s = Uninterruptibles.getUninterruptibly(task);
      if (s != null) {
        s.close();
      }
    } catch (ExecutionException e) {
      // nothing was opened
    }
  }
}
