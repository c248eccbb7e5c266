package io.bbfindex.eth;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * JSON-RPC calls sent to the node, by method (a batch of 100 block fetches counts 100). The metric
 * that proves a filter "no" costs no call; the app exposes it through Micrometer.
 */
public final class RpcCalls {
  private final Map<String, LongAdder> byMethod = new ConcurrentHashMap<>();

  void count(String method, int calls) {
    byMethod.computeIfAbsent(method, m -> new LongAdder()).add(calls);
  }

  /** Calls of {@code method} so far. */
  public long of(String method) {
    LongAdder a = byMethod.get(method);
    return a == null ? 0 : a.sum();
  }

  /** Calls of every method so far. */
  public long total() {
    return byMethod.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** A sorted snapshot, method -> calls. */
  public Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    byMethod.forEach((m, a) -> out.put(m, a.sum()));
    return out;
  }
}
