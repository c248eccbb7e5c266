@NullMarked
package io.bbfindex.filters.hash;

import org.jspecify.annotations.NullMarked;
