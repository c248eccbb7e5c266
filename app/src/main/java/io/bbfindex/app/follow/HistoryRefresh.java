package io.bbfindex.app.follow;

import io.bbfindex.app.bitcoincore.CoreChainBackend;
import io.bbfindex.follow.FollowConfig;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.FollowStats;
import io.bbfindex.follow.Follower;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 12 section 6: when the tip layer holds {@code refreshBlocks} blocks or more, a new private
 * snapshot of the running node is taken, the filter store brought up to it in the background (its
 * files are replaced by atomic renames, so the store being served keeps its mapped files), a new
 * follower started on the new snapshot's tip and, once it serves the same tip as the current one,
 * both swapped in at once ({@link FollowingBackend#swap}). Each lookup reads the pair once, and
 * either pair covers every tx up to the tip: none is missed or answered twice during the swap. The
 * old pair is closed a grace period later, when lookups that read it are long done.
 *
 * <p>Core writes its block index only every ~hour (or at {@code gettxoutsetinfo} and shutdown): a
 * snapshot no newer than the current one is dropped and tried again at the next check.
 */
final class HistoryRefresh implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(HistoryRefresh.class.getName());

  /** How long replaced layers stay open for lookups that read them just before the swap. */
  static final Duration GRACE = Duration.ofSeconds(5);

  private static final Duration CATCH_UP = Duration.ofMinutes(2);

  private final FollowingBackend backend;
  private final Path datadir;
  private final Path filters;
  private final Path work;
  private final BuildOptions options;
  private final FollowConfig template;
  private final FollowStats stats;
  private final int refreshBlocks;
  private final boolean own;
  private final PrintStream log;
  private final AtomicLong refreshes = new AtomicLong();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("history-refresh").unstarted(r));

  /**
   * @param template the follower configuration whose base each refresh replaces
   * @param refreshBlocks tip-layer depth that triggers a refresh
   * @param own whether the history answers from the own index (then brought up to each new
   *     snapshot's blocks, in this background thread, before the swap)
   * @param log where the own index says what it built or merged
   */
  HistoryRefresh(
      FollowingBackend backend,
      Path datadir,
      Path filters,
      Path work,
      BuildOptions options,
      FollowConfig template,
      FollowStats stats,
      int refreshBlocks,
      boolean own,
      PrintStream log) {
    this.backend = backend;
    this.datadir = datadir;
    this.filters = filters;
    this.work = work;
    this.options = options;
    this.template = template;
    this.stats = stats;
    this.refreshBlocks = refreshBlocks;
    this.own = own;
    this.log = log;
  }

  /** Checks every {@code period}. */
  void start(Duration period) {
    scheduler.scheduleWithFixedDelay(
        this::check, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  long refreshes() {
    return refreshes.get();
  }

  private void check() {
    Follower current = backend.follower();
    if (current.servedTipHeight() - current.status().snapshotTipHeight() < refreshBlocks) {
      return;
    }
    try {
      refreshNow();
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "history refresh failed, trying again later: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * One refresh attempt.
   *
   * @return whether new layers were swapped in (false: the node has not written a newer block index
   *     yet)
   * @throws IOException if the snapshot or the store cannot be built
   */
  boolean refreshNow() throws IOException, InterruptedException {
    Follower current = backend.follower();
    NodeIndex index = NodeIndex.open(datadir, work, true, own);
    CoreChainBackend history = null;
    Follower follower = null;
    try {
      SnapshotBase base = SnapshotBase.of(index, own);
      if (base.height() <= current.status().snapshotTipHeight()) {
        LOG.log(
            Level.INFO,
            "history refresh: the node's indexes on disk are still complete only to "
                + base.height());
        index.close();
        return false;
      }
      FilterStore store = FilterBuilder.ensureBuilt(index, filters, options, ProgressListener.NONE);
      history = FollowServe.history(index, store, filters, work, own, log);
      follower =
          Follower.start(
              new FollowConfig(
                  template.rpc(),
                  template.zmq(),
                  template.blocksDir(),
                  base.hash(),
                  base.height(),
                  template.pollInterval()),
              stats);
      // Caught up with the current follower's tip (it may move meanwhile: follow it).
      long deadline = System.nanoTime() + CATCH_UP.toNanos();
      while (!(follower.status().state() == FollowState.FOLLOWING
          && follower
              .status()
              .servedTipHash()
              .equals(backend.follower().status().servedTipHash()))) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "the refreshed follower did not catch up within " + CATCH_UP.toSeconds() + " s");
        }
        Thread.sleep(10);
      }
      FollowingBackend.Layers old = backend.swap(new FollowingBackend.Layers(history, follower));
      refreshes.incrementAndGet();
      LOG.log(Level.INFO, "history refreshed: snapshot complete to " + base.height());
      scheduler.schedule(
          () -> FollowingBackend.closeLayers(old), GRACE.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (IOException | RuntimeException | InterruptedException e) {
      if (follower != null) {
        follower.close();
      }
      if (history != null) {
        history.close();
      } else {
        index.close();
      }
      throw e;
    }
  }

  /** Stops checking; replaced layers still waiting for their grace period are closed now. */
  @Override
  public void close() {
    for (Runnable pending : scheduler.shutdownNow()) {
      pending.run();
    }
  }
}
