package io.bbfindex.ingest.store;

import io.bbfindex.filters.io.FilterFileException;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.filters.io.MappedFilterFile;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The filters a {@link FilterStore} answers from, in slot order (summary, block hashes, per-file
 * filters), in one of two stages.
 *
 * <ul>
 *   <li><b>Copies</b>: verified in-memory copies ({@code FilterFile.read}). Nothing done to the
 *       files can change an answer; a lookup costs one volatile read more than the bare probe.
 *   <li><b>Mappings</b>, while the copies are made: a store opened {@linkplain
 *       FilterStore#openMappedFirst mapped first} answers from the verified mappings of its files
 *       (in the page cache already when the store was built or served before: about half a second
 *       to verify 1.75 GiB of summary, where the copy into fresh memory takes 1-5 s on this
 *       machine), while one thread copies every file from the same open file and then swaps the
 *       copies in. A mapping reads whatever the file holds now, so every answer from it is trusted
 *       only once a stat of the files probed shows them unchanged since they were verified (a
 *       truncation or an in-place write changes size or modification time, {@link
 *       FileFingerprint}); a fault in the mapping (a truncated file) surfaces as the {@link
 *       InternalError} of the scalar kernel the mappings answer with. Either way the lookup gets a
 *       {@link FilterStoreChangedException} (503: retry), never an answer from changed bits. A copy
 *       that fails (the file changed) leaves the store on its mappings, which then refuse every
 *       answer, and is reported by {@link #copyFailure} so that the store is verified again.
 * </ul>
 */
final class ServedFilters implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ServedFilters.class.getName());

  /** One set of filters in slot order, and whether they are the mappings. */
  record Stage(List<LoadedFilter> slots, boolean mapped) {
    LoadedFilter summary() {
      return slots.get(0);
    }

    LoadedFilter blocks() {
      return slots.get(1);
    }

    List<LoadedFilter> perFile() {
      return slots.subList(2, slots.size());
    }
  }

  /** Slot of the summary filter. */
  static final int SUMMARY = 0;

  /** Slot of the block-hash filter. */
  static final int BLOCKS = 1;

  /** Slot of the first per-file filter. */
  static final int FIRST_FILE = 2;

  private final List<FileFingerprint> prints;
  private final List<MappedFilterFile> mappings;

  /** Counted down once the copies answer or could not be made. */
  private final CountDownLatch settled = new CountDownLatch(1);

  /** Counted down once the copy task has ended, or will never run (closed before it started). */
  private final CountDownLatch copierDone = new CountDownLatch(1);

  private volatile Stage stage;
  private volatile @Nullable String copyFailure;
  private @Nullable Thread copier;
  private boolean mappingsClosed;
  private boolean closed;

  private ServedFilters(
      Stage stage, List<MappedFilterFile> mappings, List<FileFingerprint> prints) {
    this.stage = stage;
    this.mappings = List.copyOf(mappings);
    this.prints = List.copyOf(prints);
  }

  /** Verified in-memory copies, answering at once. */
  static ServedFilters ofCopies(List<LoadedFilter> copies, List<FileFingerprint> prints) {
    ServedFilters s = new ServedFilters(new Stage(List.copyOf(copies), false), List.of(), prints);
    s.settled.countDown();
    s.copierDone.countDown();
    return s;
  }

  /**
   * Verified mappings answering (confirmed by a stat each) while their copies are made by a task
   * handed to {@code copyOn} here; {@code prints} are the files' fingerprints taken before they
   * were verified, in the same order.
   */
  static ServedFilters mappedThenCopied(
      List<MappedFilterFile> mappings, List<FileFingerprint> prints, Executor copyOn) {
    List<LoadedFilter> slots = mappings.stream().map(MappedFilterFile::mapping).toList();
    ServedFilters s = new ServedFilters(new Stage(slots, true), mappings, prints);
    copyOn.execute(s::copyAll);
    return s;
  }

  /** The filters answering now. */
  Stage stage() {
    return stage;
  }

  /**
   * {@code probe}'s answer from the mappings of {@code s}, trusted only once the files of slots
   * {@code [from, to)} are found unchanged since they were verified.
   *
   * @throws FilterStoreChangedException if one changed, or the mapping faulted
   */
  <T> T fromMappings(Stage s, Function<Stage, T> probe, int from, int to) {
    T answer;
    try {
      answer = probe.apply(s);
    } catch (InternalError fault) {
      // HotSpot's report of a fault in a mapped read: the file was truncated under the mapping
      throw changed(from, "reading its mapping faulted (" + fault.getMessage() + ")");
    } catch (IllegalStateException freed) {
      Stage now = stage;
      if (now.mapped()) { // the stage only ever changes from the mappings to the copies
        throw freed;
      }
      // the copies came in and the mappings were freed while this probe ran: ask the copies
      return probe.apply(now);
    }
    for (int slot = from; slot < to; slot++) {
      String change = prints.get(slot).change();
      if (change != null) {
        throw changed(slot, change);
      }
    }
    return answer;
  }

  private FilterStoreChangedException changed(int slot, String what) {
    return new FilterStoreChangedException(
        prints.get(slot).path(),
        "filter file "
            + prints.get(slot).path().getFileName()
            + " changed on disk while it was served from its mapping ("
            + what
            + "): no answer from it until the store is verified again");
  }

  /** Why the copies could not be made (a file changed since it was mapped), or null. */
  @Nullable String copyFailure() {
    return copyFailure;
  }

  /**
   * Waits until the copies answer or their copy failed.
   *
   * @return whether the copies answer
   */
  boolean awaitCopies(long timeout, TimeUnit unit) throws InterruptedException {
    return settled.await(timeout, unit) && !stage.mapped();
  }

  /** The copy task: every file copied, then swapped in; the mappings freed after a grace period. */
  private void copyAll() {
    synchronized (this) {
      if (closed) {
        return; // close() did not wait for a task that had not started, nor counted it down
      }
      copier = Thread.currentThread();
    }
    try {
      copyAndSwap();
    } finally {
      settled.countDown(); // a copy that failed or was stopped settles too
      synchronized (this) {
        copier = null;
        Thread.interrupted(); // an interrupt from close() is for this task, not the executor's
      }
      copierDone.countDown();
    }
  }

  private void copyAndSwap() {
    List<LoadedFilter> copies = new ArrayList<>(mappings.size());
    try {
      for (MappedFilterFile m : mappings) {
        copies.add(m.copy());
      }
    } catch (FilterFileException e) {
      copies.forEach(LoadedFilter::close);
      if (!isClosed()) {
        copyFailure = "its verified copy could not be made: " + e.getMessage();
        LOG.log(Level.WARNING, "filter store stays on its mappings: " + copyFailure);
      }
      return;
    }
    synchronized (this) {
      if (closed) {
        copies.forEach(LoadedFilter::close);
        return;
      }
      stage = new Stage(List.copyOf(copies), false);
    }
    settled.countDown(); // the copies answer from here; the mappings go after the grace period
    try {
      Thread.sleep(FilterStore.MAPPING_GRACE.toMillis());
    } catch (InterruptedException e) {
      // closing: the mappings go now
    }
    closeMappings();
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  private synchronized void closeMappings() {
    if (!mappingsClosed) {
      mappingsClosed = true;
      mappings.forEach(MappedFilterFile::close);
    }
  }

  /** Stops the copy task and frees every filter. Idempotent. */
  @Override
  public void close() {
    Thread running;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      settled.countDown(); // nobody waits for copies of a closed store
      running = copier;
      if (running == null) {
        copierDone.countDown(); // ended already, or will find this closed and not start
      }
    }
    if (running != null) {
      running.interrupt(); // an interrupted read closes its channel: the copy fails at once
      try {
        copierDone.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Stage settledStage = stage;
    if (!settledStage.mapped()) {
      settledStage.slots().forEach(LoadedFilter::close);
    }
    closeMappings();
  }
}
