package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.records.TxIndexScan;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A full txindex scan split over threads: {@code decoders} threads each iterate ranges of the
 * txid's first byte (their own LevelDB iterators; decoding is most of the cost: JNI iteration and
 * Core VARINTs), pack the rows into batches, and ONE inserter, the calling thread, feeds them to
 * the {@link TxFilterPass}. A single inserter is required, not a shortcut: BBF inserts are plain
 * read-modify-write of 32- or 64-bit words, so two threads inserting into one filter could lose
 * each other's bits, i.e. make false negatives. Bloom filter bits do not depend on insertion order,
 * so the filters are bit-for-bit those of a sequential scan.
 *
 * <p>With {@code decoders <= 0} the scan runs inline on the calling thread (the one-core path the
 * benchmark measures). Batches are recycled through a bounded free list, so memory stays at {@code
 * 5 * decoders} batches of {@value #BATCH} rows (about 150 KB each).
 */
final class ParallelTxScan {

  static final int BATCH = 4096;

  /** Ranges handed out to decoders, in first-byte units (txids are uniform: equal work each). */
  private static final int SLICE = 4;

  private ParallelTxScan() {}

  /** Packed rows: txids back to back, and their file numbers. {@code n < 0}: a decoder finished. */
  private static final class Batch {
    final byte[] keys = new byte[BATCH * 32];
    final int[] files = new int[BATCH];
    int n;
  }

  /** Stops a decoder whose scan must end early (another thread failed). */
  private static final class Cancelled extends RuntimeException {
    Cancelled() {
      super(null, null, false, false);
    }
  }

  static void run(TxRangeSource source, int decoders, TxFilterPass sink) {
    if (decoders <= 0) {
      source.forEachTx(0, TxIndexScan.FIRST_BYTES, sink);
      return;
    }
    BlockingQueue<Batch> full = new ArrayBlockingQueue<>(decoders * 5 + decoders);
    BlockingQueue<Batch> free = new ArrayBlockingQueue<>(decoders * 5);
    for (int i = 0; i < decoders * 5; i++) {
      free.add(new Batch());
    }
    AtomicInteger nextSlice = new AtomicInteger();
    AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
    Batch end = new Batch();
    end.n = -1;
    Thread[] threads = new Thread[decoders];
    for (int t = 0; t < decoders; t++) {
      threads[t] =
          Thread.ofPlatform()
              .name("txindex-decoder-" + t)
              .daemon()
              .start(() -> decode(source, nextSlice, full, free, failure, end));
    }
    int finished = 0;
    try {
      while (finished < decoders) {
        Batch b = full.take();
        if (b.n < 0) {
          finished++;
          continue;
        }
        if (failure.get() == null) {
          try {
            for (int i = 0; i < b.n; i++) {
              sink.accept(b.keys, i * 32, b.files[i]);
            }
          } catch (RuntimeException | Error e) {
            failure.compareAndSet(null, e);
          }
        }
        free.put(b); // keep recycling even after a failure, so no decoder blocks forever
      }
      for (Thread t : threads) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure.compareAndSet(null, e);
      for (Thread t : threads) {
        t.interrupt();
      }
    }
    Throwable f = failure.get();
    if (f instanceof RuntimeException r) {
      throw r;
    }
    if (f instanceof Error err) {
      throw err;
    }
    if (f != null) {
      throw new IllegalStateException("txindex scan interrupted", f);
    }
  }

  private static void decode(
      TxRangeSource source,
      AtomicInteger nextSlice,
      BlockingQueue<Batch> full,
      BlockingQueue<Batch> free,
      AtomicReference<@Nullable Throwable> failure,
      Batch end) {
    Batch[] current = new Batch[1];
    try {
      current[0] = free.take();
      current[0].n = 0;
      for (int from;
          (from = nextSlice.getAndAdd(SLICE)) < TxIndexScan.FIRST_BYTES
              && failure.get() == null; ) {
        source.forEachTx(
            from,
            Math.min(from + SLICE, TxIndexScan.FIRST_BYTES),
            (txid, file, pos, off) -> {
              Batch b = current[0];
              if (b.n == BATCH) {
                if (failure.get() != null) {
                  throw new Cancelled();
                }
                putUninterruptibly(full, b);
                b = takeUninterruptibly(free);
                b.n = 0;
                current[0] = b;
              }
              System.arraycopy(txid, 0, b.keys, b.n * 32, 32);
              b.files[b.n++] = file;
            });
      }
      putUninterruptibly(full, current[0]);
    } catch (Cancelled e) {
      // another thread failed first; its failure is reported
    } catch (RuntimeException | Error e) {
      failure.compareAndSet(null, e);
    } catch (InterruptedException e) {
      failure.compareAndSet(null, e);
    } finally {
      putUninterruptibly(full, end);
    }
  }

  private static void putUninterruptibly(BlockingQueue<Batch> q, Batch b) {
    try {
      q.put(b);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("txindex scan interrupted", e);
    }
  }

  private static Batch takeUninterruptibly(BlockingQueue<Batch> q) {
    try {
      return q.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("txindex scan interrupted", e);
    }
  }
}
