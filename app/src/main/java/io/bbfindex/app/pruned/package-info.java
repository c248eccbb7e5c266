/**
 * Pruned nodes: the fingerprints of the txids of blocks the node may delete (chain-ingest's {@code
 * FingerprintStore}), what lookups learn from them once a block is gone, the "behind the node's
 * prune horizon" state of blocks pruned before bbf-index saw them, and {@code --backfill-pruned},
 * which fetches those back from peers ({@code getblockfrompeer}).
 */
@NullMarked
package io.bbfindex.app.pruned;

import org.jspecify.annotations.NullMarked;
