@NullMarked
package io.bbfindex.benchmarks.scale;

import org.jspecify.annotations.NullMarked;
