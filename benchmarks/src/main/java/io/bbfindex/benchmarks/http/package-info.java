@NullMarked
package io.bbfindex.benchmarks.http;

import org.jspecify.annotations.NullMarked;
