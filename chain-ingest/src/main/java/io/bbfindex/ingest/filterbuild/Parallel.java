package io.bbfindex.ingest.filterbuild;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** Maps a list on the build's own pool (verifying and writing filter files use every core). */
final class Parallel {

  private Parallel() {}

  /**
   * {@code items} mapped by {@code f} on {@code pool}, in order (null results allowed).
   *
   * @throws IOException the IOException {@code f} threw wrapped in an UncheckedIOException, or
   *     {@link InterruptedIOException} if interrupted
   */
  static <T, R extends @Nullable Object> List<R> map(
      ForkJoinPool pool, List<T> items, Function<T, R> f) throws IOException {
    try {
      return pool.submit(() -> items.parallelStream().map(f).toList()).get();
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IOException(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("build interrupted");
    }
  }
}
