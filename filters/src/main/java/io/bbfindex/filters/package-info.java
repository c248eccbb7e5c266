@NullMarked
package io.bbfindex.filters;

import org.jspecify.annotations.NullMarked;
