@NullMarked
package io.bbfindex.filters.peers;

import org.jspecify.annotations.NullMarked;
