@NullMarked
package io.bbfindex.benchmarks.follow;

import org.jspecify.annotations.NullMarked;
