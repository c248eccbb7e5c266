package io.bbfindex.eth;

/** Where a transaction is: its block's number and hash and its index in the block. */
public record EthTxLocation(long blockNumber, TxHash blockHash, int transactionIndex) {}
