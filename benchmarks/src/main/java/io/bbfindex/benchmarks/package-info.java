@NullMarked
package io.bbfindex.benchmarks;

import org.jspecify.annotations.NullMarked;
