package io.bbfindex.app.eth;

import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.EthRpc;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The Ethereum source's meters: JSON-RPC calls by method ({@code bbf_eth_rpc_calls_total}, the
 * proof that a filter "no" costs no call), reorged-out blocks, and gauges of the head, the final
 * block, the served tip, the ranges and the tip's and pending pool's sizes.
 */
public final class EthMetrics {
  private EthMetrics() {}

  public static void bind(MeterRegistry registry, EthIndex index) {
    for (String method : EthRpc.METHODS) {
      FunctionCounter.builder("bbf.eth.rpc.calls", index, i -> i.rpcCalls().of(method))
          .description("JSON-RPC calls sent to the Ethereum node, by method")
          .tag("method", method)
          .register(registry);
    }
    FunctionCounter.builder("bbf.eth.reorged.blocks", index, i -> i.status().reorgs())
        .description("blocks removed from the tip by reorgs")
        .register(registry);
    gauge(registry, "bbf.eth.head", index, "the node's head block", i -> i.status().head());
    gauge(
        registry,
        "bbf.eth.finalized",
        index,
        "the block taken as final",
        i -> i.status().finalized());
    gauge(
        registry,
        "bbf.eth.served.tip",
        index,
        "the newest block answered from",
        i -> i.servedTip());
    gauge(registry, "bbf.eth.ranges", index, "complete history ranges", i -> i.status().ranges());
    gauge(registry, "bbf.eth.tip.txs", index, "transactions in the tip", i -> i.status().tipTxs());
    gauge(
        registry,
        "bbf.eth.pending",
        index,
        "pending transactions known",
        i -> i.status().pending());
    gauge(
        registry,
        "bbf.eth.caught.up",
        index,
        "1 when every final range is stored and the tip reached the head",
        i -> i.caughtUp() ? 1 : 0);
  }

  private static void gauge(
      MeterRegistry registry,
      String name,
      EthIndex index,
      String help,
      java.util.function.ToDoubleFunction<EthIndex> value) {
    Gauge.builder(name, index, value).description(help).register(registry);
  }
}
