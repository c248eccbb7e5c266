@NullMarked
package io.bbfindex.follow.node;

import org.jspecify.annotations.NullMarked;
