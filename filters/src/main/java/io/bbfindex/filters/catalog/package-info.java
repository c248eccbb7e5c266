@NullMarked
package io.bbfindex.filters.catalog;

import org.jspecify.annotations.NullMarked;
