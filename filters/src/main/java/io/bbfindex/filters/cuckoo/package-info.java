@NullMarked
package io.bbfindex.filters.cuckoo;

import org.jspecify.annotations.NullMarked;
