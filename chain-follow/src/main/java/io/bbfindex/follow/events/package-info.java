@NullMarked
package io.bbfindex.follow.events;

import org.jspecify.annotations.NullMarked;
