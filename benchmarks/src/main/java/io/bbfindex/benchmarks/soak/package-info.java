@NullMarked
package io.bbfindex.benchmarks.soak;

import org.jspecify.annotations.NullMarked;
