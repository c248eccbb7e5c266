@NullMarked
package io.bbfindex.app;

import org.jspecify.annotations.NullMarked;
