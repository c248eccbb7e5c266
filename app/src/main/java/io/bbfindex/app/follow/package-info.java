@NullMarked
package io.bbfindex.app.follow;

import org.jspecify.annotations.NullMarked;
