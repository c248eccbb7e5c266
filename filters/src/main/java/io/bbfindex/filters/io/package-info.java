/**
 * Persistence of blocked Bloom filters: {@link io.bbfindex.filters.io.FilterFile} writes files
 * atomically and maps them read-only after validating every field and both CRC32C checksums;
 * anything wrong is a {@link io.bbfindex.filters.io.FilterFileException} naming the file. The byte
 * format is specified in {@code filters/FORMAT.md}.
 */
@NullMarked
package io.bbfindex.filters.io;

import org.jspecify.annotations.NullMarked;
