@NullMarked
package io.bbfindex.eth;

import org.jspecify.annotations.NullMarked;
