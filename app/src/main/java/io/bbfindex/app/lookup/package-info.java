@NullMarked
package io.bbfindex.app.lookup;

import org.jspecify.annotations.NullMarked;
