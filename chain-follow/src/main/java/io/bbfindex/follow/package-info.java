@NullMarked
package io.bbfindex.follow;

import org.jspecify.annotations.NullMarked;
