package io.bbfindex.app.lookup;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The backend while it is still being opened, so that the HTTP server can start at the same time:
 * at mainnet scale reading and verifying the filter store takes about a second, starting the HTTP
 * stack about as long, and neither needs the other until the first lookup.
 *
 * <p>Until the backend is in ({@link #complete}), nothing is answered from it: every lookup throws
 * {@link BackendUnavailableException} (503, retry), {@code /readyz} is not ready, {@code /livez}
 * answers as always. The backend is only handed over once opened, and opening it verifies the whole
 * store ({@code FilterStore.open}), so no lookup is ever answered from an unverified store. From
 * then on every call goes straight to it (one volatile read).
 */
public final class OpeningBackend implements ChainBackend {

  private final CompletableFuture<ChainBackend> arrival = new CompletableFuture<>();
  private volatile @Nullable ChainBackend backend;
  private volatile boolean closed;

  /**
   * Hands over the opened backend; from here on it answers. If this was closed meanwhile (the
   * server stopped during start-up), the backend is closed instead.
   */
  public void complete(ChainBackend opened) {
    synchronized (this) {
      if (!closed) {
        backend = opened;
      }
    }
    if (backend != opened) {
      opened.close();
      return;
    }
    arrival.complete(opened);
  }

  /**
   * Runs {@code action} with the backend once it is in (at once if it is): what must describe the
   * real backend, such as metric tags naming its txindex layout, waits for it here.
   */
  public void whenOpened(Consumer<ChainBackend> action) {
    arrival.thenAccept(action);
  }

  /** The opened backend, or a 503 for the request that asked too early. */
  private ChainBackend open() {
    ChainBackend b = backend;
    if (b == null) {
      throw new BackendUnavailableException(notReadyReason(), null);
    }
    return b;
  }

  @Override
  public boolean txMaybe(byte[] keys, int offset) {
    return open().txMaybe(keys, offset);
  }

  @Override
  public int txMaybeBatch(byte[] keys, int count, long[] maybe) {
    return open().txMaybeBatch(keys, count, maybe);
  }

  @Override
  public Optional<TxAnswer> lookupTx(byte[] txid) {
    return open().lookupTx(txid);
  }

  @Override
  public boolean blockMaybe(byte[] hash) {
    return open().blockMaybe(hash);
  }

  @Override
  public Optional<BlockAnswer> lookupBlock(byte[] hash) {
    return open().lookupBlock(hash);
  }

  @Override
  public List<FilterSummary> filters() {
    return open().filters();
  }

  @Override
  public List<FilterSummary> lookupFilters() {
    return open().lookupFilters();
  }

  @Override
  public int tipHeight() {
    return open().tipHeight();
  }

  @Override
  public double txindexLagBlocks() {
    return open().txindexLagBlocks();
  }

  @Override
  public String txindexLayout() {
    return open().txindexLayout();
  }

  @Override
  public String txindexLocation() {
    return open().txindexLocation();
  }

  @Override
  public String txindexSource() {
    return open().txindexSource();
  }

  /** 0 until opened (the counter of LevelDB reads is registered at once). */
  @Override
  public long leveldbReads() {
    ChainBackend b = backend;
    return b == null ? 0 : b.leveldbReads();
  }

  @Override
  public Map<String, Object> status() {
    return open().status();
  }

  @Override
  public Map<String, java.util.function.DoubleSupplier> gauges() {
    return open().gauges();
  }

  @Override
  public Optional<BlockData> blockData() {
    return open().blockData();
  }

  @Override
  public boolean ready() {
    ChainBackend b = backend;
    return b != null && b.ready();
  }

  @Override
  public String notReadyReason() {
    ChainBackend b = backend;
    return b == null
        ? "the filter store is being read and verified (start-up)"
        : b.notReadyReason();
  }

  /** Closes the backend, or, while it is being opened, has it closed when it arrives. */
  @Override
  public void close() {
    ChainBackend b;
    synchronized (this) {
      closed = true;
      b = backend;
    }
    if (b != null) {
      b.close();
    }
  }
}
