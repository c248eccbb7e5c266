package io.bbfindex.app.wallet;

import io.bbfindex.app.lookup.TxAnswer;
import org.bitcoinj.core.Transaction;

/**
 * A transaction read from its block file whose bytes were re-hashed to the txid asked for.
 *
 * @param at where the index located it
 * @param bytes the serialization as stored (witness included)
 * @param tx bitcoinj's parse of {@code bytes}
 */
public record StoredTx(TxAnswer at, byte[] bytes, Transaction tx) {}
