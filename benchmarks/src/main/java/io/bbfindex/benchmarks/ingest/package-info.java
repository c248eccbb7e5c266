@NullMarked
package io.bbfindex.benchmarks.ingest;

import org.jspecify.annotations.NullMarked;
