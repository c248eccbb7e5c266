package io.bbfindex.eth;

import java.util.Map;

/**
 * The Ethereum source at a glance, for {@code /v1/eth/status} and the metrics.
 *
 * @param head the node's head at the last poll
 * @param finalized the block taken as final at the last poll
 * @param servedTip the newest block the index answers from
 * @param ranges complete history ranges
 * @param historyTxs transactions in the history ranges
 * @param tipBlocks, tipTxs blocks and transactions in the tip
 * @param pending pending transactions known
 * @param reorgs blocks removed by reorgs since start
 * @param caughtUp whether every final range is in the history and the tip reaches the head (until
 *     then a hash the index does not hold is answered 503 catching_up)
 * @param rpcCalls JSON-RPC calls sent, by method
 */
public record EthStatus(
    long head,
    long finalized,
    long servedTip,
    int rangeBits,
    int ranges,
    long historyTxs,
    int tipBlocks,
    int tipTxs,
    int pending,
    long reorgs,
    boolean caughtUp,
    Map<String, Long> rpcCalls) {}
