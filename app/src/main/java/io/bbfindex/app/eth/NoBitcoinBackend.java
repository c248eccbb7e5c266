package io.bbfindex.app.eth;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.TxAnswer;
import java.util.List;
import java.util.Optional;

/**
 * The Bitcoin side of a server started with {@code --eth-rpc} alone: it holds nothing, so every
 * Bitcoin lookup is absent without any work, and the Ethereum routes do the serving.
 */
public final class NoBitcoinBackend implements ChainBackend {
  @Override
  public boolean txMaybe(byte[] keys, int offset) {
    return false;
  }

  @Override
  public int txMaybeBatch(byte[] keys, int count, long[] maybe) {
    java.util.Arrays.fill(maybe, 0, (count + 63) >>> 6, 0L);
    return 0;
  }

  @Override
  public Optional<TxAnswer> lookupTx(byte[] txid) {
    return Optional.empty();
  }

  @Override
  public boolean blockMaybe(byte[] hash) {
    return false;
  }

  @Override
  public Optional<BlockAnswer> lookupBlock(byte[] hash) {
    return Optional.empty();
  }

  @Override
  public List<FilterSummary> filters() {
    return List.of();
  }

  @Override
  public int tipHeight() {
    return -1;
  }

  @Override
  public long leveldbReads() {
    return 0;
  }

  @Override
  public boolean ready() {
    return true;
  }

  @Override
  public void close() {}
}
