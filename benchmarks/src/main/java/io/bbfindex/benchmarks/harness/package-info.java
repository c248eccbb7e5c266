@NullMarked
package io.bbfindex.benchmarks.harness;

import org.jspecify.annotations.NullMarked;
