@NullMarked
package io.bbfindex.benchmarks.eth;

import org.jspecify.annotations.NullMarked;
