@NullMarked
package io.bbfindex.benchmarks.synthetic;

import org.jspecify.annotations.NullMarked;
