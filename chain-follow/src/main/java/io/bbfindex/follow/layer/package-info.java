@NullMarked
package io.bbfindex.follow.layer;

import org.jspecify.annotations.NullMarked;
