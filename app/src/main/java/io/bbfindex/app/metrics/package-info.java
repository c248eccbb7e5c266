@NullMarked
package io.bbfindex.app.metrics;

import org.jspecify.annotations.NullMarked;
