package io.bbfindex.app.bitcoincore;

/**
 * What a user chooses about a filter store that {@code ingest} or {@code serve} builds.
 *
 * @param targetFpr target false-positive rate of each filter
 * @param unsalted the public, unkeyed bit derivation instead of the default secret per-store salt
 * @param fileFilters also one BBF per block file ({@code BuildOptions.fileFilters})
 */
public record StoreChoices(double targetFpr, boolean unsalted, boolean fileFilters) {}
