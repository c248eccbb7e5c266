@NullMarked
package io.bbfindex.benchmarks.store;

import org.jspecify.annotations.NullMarked;
